import Foundation
import PageProxyCore
import Testing

@Suite struct HTTPDateTests {
    private let example = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("the shared Date text is the second's own: reused within it, never across seconds")
    func formatOncePerSecondIsTheSecondsText() {
        #expect(HTTPDate.formatOncePerSecond(example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.formatOncePerSecond(example.addingTimeInterval(0.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.formatOncePerSecond(example.addingTimeInterval(1)) == "Sun, 06 Nov 1994 08:49:38 GMT")
        #expect(HTTPDate.formatOncePerSecond(example.addingTimeInterval(-0.1)) == "Sun, 06 Nov 1994 08:49:36 GMT")
        #expect(HTTPDate.formatOncePerSecond(.distantFuture) == HTTPDate.format(.distantFuture))
        let now = Date()
        #expect(HTTPDate.formatOncePerSecond(now) == HTTPDate.format(now))
    }

    @Test func roundTripsThroughFormatAndParse() {
        for seconds in stride(from: -86_400 * 365, to: 4_102_444_800, by: 7_654_321) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    @Test func matchesFoundationFormatting() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for seconds in stride(from: 0, to: 2_000_000_000, by: 123_456_789) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.format(date) == formatter.string(from: date))
        }
    }

    @Test func parsesIMFFixdate() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == example)
    }

    @Test func parsesObsoleteRFC850Date() {
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == example)
    }

    @Test func parsesObsoleteAsctimeDate() {
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == example)
        #expect(HTTPDate.parse("Sun Nov 16 08:49:37 1994") == example.addingTimeInterval(10 * 86_400))
    }

    @Test(arguments: ["", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
                      "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                      "Sun, 06 Nov 1994 08:60:00 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
                      "Sun Nov  6 08:49:37 94", "1994-11-06T08:49:37Z", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 0x Nov 1994 08:49:37 GMT"])
    func refusesInvalidDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
