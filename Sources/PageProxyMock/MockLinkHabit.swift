/// Hostile `Link` spellings on the GitHub service (`mock_link=`; attack22, a hostile upstream's shapes, no real
/// server's): each adds what a strict RFC 8288 reader must not take for this page's next link.
enum MockLinkHabit {
    case none
    /// A decoy `rel="next"` five pages on, anchored at another resource (RFC 8288 §3.2: that resource's next).
    case anchor
    /// `prev` with `title="rel=next"` (a quoted-string: no relation).
    case titleRel
    /// `prev` written `rel="prev"; rel="next"` (RFC 8288 §3.3: the second `rel` is ignored).
    case relTwice
    /// A decoy `<URL; rel="prev"` never closed, right before the real next.
    case unclosed

    init?(query value: String?) {
        switch value {
        case nil: self = .none
        case "anchor": self = .anchor
        case "titlerel": self = .titleRel
        case "reltwice": self = .relTwice
        case "unclosed": self = .unclosed
        default: return nil
        }
    }

    /// Whether `last` is written: not with the `prev` spellings, so that the walk follows `next` page by page and
    /// reads the last page's links (with `last` it fans out, and never reads them).
    var writesLast: Bool { self != .titleRel && self != .relTwice }

    /// Written after the `prev` link-value's `rel`.
    var prevSuffix: String {
        switch self {
        case .titleRel: #"; title="rel=next""#
        case .relTwice: #"; rel="next""#
        default: ""
        }
    }

    /// Link-values written before the real next (`decoy` is a page of the same list further on).
    func decoys(_ decoy: String) -> [String] {
        switch self {
        case .anchor: [#"<\#(decoy)>; rel="next"; anchor="/elsewhere/items""#]
        case .unclosed: [#"<\#(decoy); rel="prev""#]
        default: []
        }
    }
}
