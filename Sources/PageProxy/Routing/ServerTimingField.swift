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
        // Appended into one string: every merged answer carries it (issue 13).
        var text = "upstream;dur="
        text.reserveCapacity(64)
        appendMilliseconds(upstream, to: &text)
        text += ", cache;dur="
        appendMilliseconds(cache, to: &text)
        text += ", total;dur="
        appendMilliseconds(total, to: &text)
        return text
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

    /// Tenths of a millisecond, rounded down; `components` read once (each read is 128-bit arithmetic: read per part,
    /// they made this field 1.4 % of a memoized answer's time, issue 13).
    private static func appendMilliseconds(_ duration: Duration, to text: inout String) {
        let (seconds, attoseconds) = duration.components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        text += String(tenths / 10)
        text += "."
        text += String(tenths % 10)
    }
}
