import Foundation
import PageProxyCore

/// The `Link` field of a window's answer (RFC 8288): `prev` and `next` point back at PageProxy, the same route, path
/// and query with the window moved, so that a scrolling client pages through any upstream with one scheme.
///
/// The targets are relative references (RFC 3986 §4.2, path-absolute), resolved against the request's own URL: no
/// `Host` a client sent is echoed. The query keeps every other parameter and control as the client wrote it; the
/// window is written last as `_offset` and `_limit` (whichever form the client used).
struct WindowLinks {
    let request: HTTPRequestHead
    let window: ItemWindow

    /// `<…>; rel="prev", <…>; rel="next"`: `prev` unless the window starts at 0, `next` (at `next`, the window's end
    /// unless the answer ended before it) when `hasMore`; nil for neither.
    func value(hasMore: Bool, next: Int? = nil) -> String? {
        var links: [String] = []
        if window.offset > 0 {
            links.append("<\(target(offset: max(0, window.offset - window.limit)))>; rel=\"prev\"")
        }
        if hasMore { links.append(nextLink(at: next ?? window.end)) }
        return links.isEmpty ? nil : links.joined(separator: ", ")
    }

    /// `<…>; rel="next"` for the window at `offset`: alone, an NDJSON trailer's `Link` (the head's has `prev`; a
    /// recipient that merges the two lists gets both).
    func nextLink(at offset: Int) -> String {
        "<\(target(offset: offset))>; rel=\"next\""
    }

    /// The request's target with the window at `offset`.
    func target(offset: Int) -> String {
        let kept = (request.query ?? "").split(separator: "&", omittingEmptySubsequences: true).filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first ?? ""
            return name != "_offset" && name != "_limit"
        }
        var pairs = kept.map(String.init)
        pairs.append("_offset=\(offset)")
        if window.limit != Int.max { pairs.append("_limit=\(window.limit)") }
        // `<`, `>` and `"` would end the reference or the field early (RFC 8288 §3); the parser lets few through.
        let text = request.path + "?" + pairs.joined(separator: "&")
        return text.replacingOccurrences(of: "<", with: "%3C").replacingOccurrences(of: ">", with: "%3E").replacingOccurrences(of: "\"", with: "%22")
    }
}
