import PageProxyCore

extension PaginationScheme {
    /// The values a scheme reads on each page beside its `morePath` flag, by their config keys: a `morePath` that is,
    /// holds or lies inside one of them names no flag (a cursor or a link is never `false`). `check-config` and
    /// `serve` refuse such a path; `probe --more-path` says so (retest20 #5) from the same list.
    static func valuesBesideMoreFlag(of scheme: PaginationScheme) -> [(key: String, path: JSONPath?)] {
        switch scheme {
        case .nextURLInBody(let options):
            [("nextPath", options.nextPath), ("totalItemsPath", options.totalItemsPath), ("totalPagesPath", options.totalPagesPath)]
        case .cursorInBody(let options):
            [("cursorPath", options.cursorObjectPath ?? options.cursorPath)]
        default:
            []
        }
    }
}

extension JSONPath {
    /// Whether one path is the other or lies inside it (`links` and `links.next`): the two name one value, or one holds
    /// the other.
    func overlaps(_ other: JSONPath) -> Bool {
        components.starts(with: other.components) || other.components.starts(with: components)
    }

    /// How this `morePath` collides with a value the scheme reads (`is also the cursorPath`), or nil when it names
    /// none of them.
    func collision(with others: [(key: String, path: JSONPath?)]) -> String? {
        for other in others {
            guard let otherPath = other.path, overlaps(otherPath) else { continue }
            return self == otherPath ? "is also the \(other.key)" : "overlaps the \(other.key) \"\(otherPath)\""
        }
        return nil
    }
}
