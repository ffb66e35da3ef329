/// `scheme: "auto"` on pages whose way on sits where no next path auto walks names it (real19): a cursor beside the
/// items under a key of their own (Reddit's listing before `data.after` was learned), Notion's envelope, and the
/// `has_more` flag beside a next link that ends a walk one request sooner.
extension SchemeDetector {
    /// Keys that hold a next page's cursor or link when beside the items. A non-empty one there with no scheme found
    /// is refused: answering the first page as the list would drop the rest with a 200 (real19 F1: 100 of 1,001).
    static let wayOnKeys = [
        "after", "next", "next_cursor", "nextCursor", "cursor", "continuation", "continuationToken", "nextPageToken",
        "next_page_token", "next_page", "nextPage", "next_url", "nextUrl", "scroll_id", "_scroll_id",
    ]

    /// The objects whose members are read as beside the items: the root, and `data` (`data.items`, `data.children`).
    static let wayOnParents: [JSONPath] = [.root, path("data")]

    /// Every path `wayOnBesideItems` reads, for the first page's one scan.
    static let wayOnPaths: [JSONPath] = wayOnParents.flatMap { parent in wayOnKeys.map { child(of: parent, $0) } }

    /// Flags that say whether more pages follow beside a next link or cursor: the first present becomes the walk's
    /// `morePath`, so that `false` ends it (Zendesk's `meta.has_more`, Notion's and Stripe's `has_more`).
    static let morePaths: [JSONPath] = ["has_more", "meta.has_more", "hasMore", "meta.hasMore"].map(path)

    /// Why a first page with no scheme found still shows a way on beside its items at `items`; nil when it shows none.
    static func wayOnBesideItems(_ values: [JSONPath: JSONValue], items: JSONPath) -> String? {
        guard let parent = items.components.isEmpty ? nil : JSONPath(components: Array(items.components.dropLast())),
            wayOnParents.contains(parent)
        else { return nil }
        for key in wayOnKeys {
            let at = child(of: parent, key)
            switch values[at] {
            case .string(let text)? where !text.isEmpty && text != "0": break
            case .number(let text)? where Double(text) != 0: break
            default: continue
            }
            let shown = values[at]?.shortDescription ?? ""
            return "the first page's \"\(at)\" holds \(shown) beside its items at \"\(items)\": a way to a next page auto does not "
                + "walk; if the API takes it back as a query parameter, name it: {\"scheme\": \"cursor\", \"cursorPath\": \"\(at)\", "
                + "\"cursorParameter\": \"\(key)\"} and \"items\": \"\(items)\""
        }
        return nil
    }

    /// The parameter a cursor found at `path` is sent back as: Notion's `next_cursor` in its `"object": "list"`
    /// envelope goes back as `start_cursor` (real19 F4: sent as `cursor`, Notion's 400); else `listed`.
    static func cursorParameter(at path: JSONPath, listed: String, _ values: [JSONPath: JSONValue]) -> String {
        path == SchemeDetector.path("next_cursor") && values[notionEnvelopePath] == .string("list") ? "start_cursor" : listed
    }

    /// Notion's (and Stripe's) `"object": "list"`.
    static let notionEnvelopePath = path("object")

    /// The first of `morePaths` that holds a flag on the first page, if any.
    static func morePath(_ values: [JSONPath: JSONValue]) -> JSONPath? {
        morePaths.first { values[$0]?.flag != nil }
    }

    private static func child(of parent: JSONPath, _ key: String) -> JSONPath {
        JSONPath(components: parent.components + [.key(key)])
    }
}
