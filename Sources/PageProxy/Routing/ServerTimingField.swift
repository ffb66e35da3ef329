import PageProxyCore
import PageProxyServer

/// The `Server-Timing` field of a merged answer (W3C Server Timing), which browsers' developer tools show:
/// `upstream;dur=12.3, cache;dur=0.4, total;dur=15.1`, in milliseconds.
///
/// `upstream` is the wall-clock time while at least one page was being fetched from the upstream (a miss, a
/// revalidation, a stale page after a failed fetch), `cache` while at least one page was read from the cache alone
/// (a hit), so that concurrent fetches count once; `total` is the request's time until the answer was ready.
/// A memoized answer has no walk: its `cache` is the memo's lookup.
enum ServerTimingField {
    static func value(upstream: Duration, cache: Duration, total: Duration) -> String {
        // Written as bytes into scratch space and made a string once: every merged answer carries it (issue 13: built
        // by six `String` appends it was 1.5 % of a memoized answer's time).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { scratch in
            var count = 0
            func append(_ text: StaticString) {
                for byte in UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount) {
                    scratch[count] = byte
                    count += 1
                }
            }
            func append(_ duration: Duration) {
                let tenths = tenthsOfMilliseconds(duration)
                // Up to 20 digits, the point and the tenth: the scratch space holds the three at their longest.
                var digits = 0
                var rest = tenths / 10
                repeat {
                    digits += 1
                    rest /= 10
                } while rest > 0
                rest = tenths / 10
                for position in stride(from: count + digits - 1, through: count, by: -1) {
                    scratch[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                count += digits
                scratch[count] = UInt8(ascii: ".")
                scratch[count + 1] = UInt8(ascii: "0") + UInt8(tenths % 10)
                count += 2
            }
            append("upstream;dur=")
            append(upstream)
            append(", cache;dur=")
            append(cache)
            append(", total;dur=")
            append(total)
            return String(decoding: UnsafeBufferPointer(rebasing: scratch[..<count]), as: UTF8.self)
        }
    }

    static func value(_ record: WalkRecord) -> String {
        let timing = record.timing
        return value(upstream: timing.upstream, cache: timing.cache, total: record.elapsed)
    }

    /// Milliseconds with one decimal.
    static func milliseconds(_ duration: Duration) -> String {
        var text = ""
        appendMilliseconds(duration, to: &text)
        return text
    }

    /// Tenths of a millisecond, rounded down, never negative; `components` read once (each read is 128-bit
    /// arithmetic: read per part, they made this field 1.4 % of a memoized answer's time, issue 13).
    private static func tenthsOfMilliseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(clamping: max(0, seconds.multipliedReportingOverflow(by: 10_000).partialValue &+ attoseconds / 100_000_000_000_000))
    }

    private static func appendMilliseconds(_ duration: Duration, to text: inout String) {
        let tenths = tenthsOfMilliseconds(duration)
        text += String(tenths / 10)
        text += "."
        text += String(tenths % 10)
    }
}
