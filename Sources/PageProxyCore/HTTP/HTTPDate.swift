import Foundation
import Synchronization

/// HTTP dates (RFC 9110 §5.6.7), with calendar arithmetic done by hand: no DateFormatter, no locale, always GMT.
package enum HTTPDate {
    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT" (fractions of a second are dropped).
    package static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970.rounded(.down)
        let seconds = interval.isFinite ? Int(max(min(interval, 2.5e11), -6.2e10)) : 0
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        bytes.append(contentsOf: dayNames[weekday].utf8)
        bytes.append(contentsOf: ", ".utf8)
        appendDigits(day, width: 2, to: &bytes)
        bytes.append(0x20)
        bytes.append(contentsOf: monthNames[month - 1].utf8)
        bytes.append(0x20)
        appendDigits(year, width: 4, to: &bytes)
        bytes.append(0x20)
        appendDigits(secondOfDay / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, to: &bytes)
        bytes.append(contentsOf: " GMT".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The last second formatted by `formatOncePerSecond` and its text.
    private static let lastFormatted = Mutex<(second: Int, text: String)>((Int.min, ""))

    /// `format(date)`, formatted once per second and shared: every answer carries `Date`, and thousands a second
    /// carry the same one.
    package static func formatOncePerSecond(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard interval.isFinite, abs(interval) < 2.5e11 else { return format(date) }
        let second = Int(interval)
        if let text = lastFormatted.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = format(date)
        lastFormatted.withLock { $0 = (second, text) }
        return text
    }

    /// Parses IMF-fixdate and the obsolete RFC 850 and asctime forms (RFC 9110 §5.6.7); nil for anything else.
    package static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
        if parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), dayNames.contains(String(parts[0].dropLast())),
            parts[1].count == 2, let day = number(parts[1]), let month = month(parts[2]),
            parts[3].count == 4, let year = number(parts[3]), parts[5] == "GMT"
        {
            return makeDate(year: year, month: month, day: day, time: parts[4])
        }
        // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
        if parts.count == 4, parts[0].hasSuffix(","), longDayNames.contains(String(parts[0].dropLast())), parts[3] == "GMT" {
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, date[0].count == 2, let day = number(date[0]), let month = month(date[1]),
                date[2].count == 2, let shortYear = number(date[2])
            else { return nil }
            return makeDate(year: fullYear(shortYear), month: month, day: day, time: parts[2])
        }
        // asctime: "Sun Nov  6 08:49:37 1994" (the day is padded with a space)
        let words = text.split(separator: " ")
        if words.count == 5, dayNames.contains(String(words[0])), let month = month(words[1]),
            (1...2).contains(words[2].count), let day = number(words[2]), words[4].count == 4, let year = number(words[4])
        {
            return makeDate(year: year, month: month, day: day, time: words[3])
        }
        return nil
    }

    /// Parses an RFC 3339 date-time (`2026-10-14T19:10:00.483000Z`, `2026-10-14T21:10:00+02:00`), as Mastodon writes
    /// its `X-RateLimit-Reset`; nil for anything else.
    package static func parseRFC3339(_ text: String) -> Date? {
        let chars = Array(text)
        guard text.utf8.count == chars.count, chars.count >= 20, chars[4] == "-", chars[7] == "-",
            chars[10] == "T" || chars[10] == "t",
            let year = number(Substring(String(chars[0..<4]))), let month = number(Substring(String(chars[5..<7]))),
            (1...12).contains(month), let day = number(Substring(String(chars[8..<10]))),
            let date = makeDate(year: year, month: month, day: day, time: Substring(String(chars[11..<19])))
        else { return nil }
        var index = 19
        var fraction = 0.0
        if chars[index] == "." {
            let digits = chars[(index + 1)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = Double("0." + String(digits)) else { return nil }
            (fraction, index) = (value, index + 1 + digits.count)
        }
        let zone = chars[index...]
        if zone == ["Z"] || zone == ["z"] { return date + fraction }
        guard zone.count == 6, zone.first == "+" || zone.first == "-", zone[index + 3] == ":",
            let hours = number(Substring(String(zone.dropFirst().prefix(2)))), hours < 24,
            let minutes = number(Substring(String(zone.suffix(2)))), minutes < 60
        else { return nil }
        let offset = Double(hours * 3600 + minutes * 60) * (zone.first == "-" ? -1 : 1)
        return date + fraction - offset
    }

    /// RFC 9110 §5.6.7 — a two-digit year more than 50 years in the future is in the previous century.
    private static func fullYear(_ shortYear: Int) -> Int {
        let now = Int(Date().timeIntervalSince1970)
        let currentYear = civil(fromDays: now / 86400).year
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    private static func makeDate(year: Int, month: Int, day: Int, time: Substring) -> Date? {
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ $0.count == 2 }),
            let hour = number(fields[0]), let minute = number(fields[1]), let second = number(fields[2]),
            hour < 24, minute < 60, second <= 60,  // 60 is a leap second
            day >= 1, day <= daysInMonth(month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + hour * 3600 + minute * 60 + second))
    }

    private static func number(_ text: Substring) -> Int? {
        HTTPFieldSyntax.parseDecimal(text.utf8)
    }

    private static func month(_ text: Substring) -> Int? {
        monthNames.firstIndex { $0 == text }.map { $0 + 1 }
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func appendDigits(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var digits: [UInt8] = []
        var rest = abs(value)
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        while digits.count < width { digits.append(UInt8(ascii: "0")) }
        bytes.append(contentsOf: digits.reversed())
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar, day 0 = 1970-01-01).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
