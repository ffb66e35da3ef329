import Testing

@testable import PageProxyCore

@Suite struct HTTPVersionTests {
    @Test("HTTP/major.minor, the two served versions and any other")
    func description() {
        #expect(HTTPVersion.http1_1.description == "HTTP/1.1")
        #expect(HTTPVersion.http1_0.description == "HTTP/1.0")
        #expect(HTTPVersion(major: 2, minor: 0).description == "HTTP/2.0")
        #expect(HTTPVersion(major: 1, minor: 2).description == "HTTP/1.2")
    }
}
