/// A path to a value inside a JSON document: object keys separated by dots, array indices as numbers.
///
/// `""` (or `"$"`) is the document root, `"items"` a top-level key, `"links.next"` a nested key and
/// `"data.0.id"` the `id` of the first element of `data`. A key that contains a dot cannot be named.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// An object member, by its key.
        case key(String)
        /// An array element, by its index from 0.
        case index(Int)
    }

    /// The steps from the root, in order; empty for the root itself.
    public let components: [Component]

    /// The document root.
    public static let root = JSONPath(components: [])

    /// The path through `components`, from the root.
    public init(components: [Component]) {
        self.components = components
    }

    /// Parses the dotted form. Returns `nil` for an empty step such as `"a..b"` or `".a"`.
    public init?(_ text: String) {
        if text.isEmpty || text == "$" {
            self.components = []
            return
        }
        var steps: [Component] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty else { return nil }
            if let index = Int(part), index >= 0, part.allSatisfy(\.isASCII) {
                steps.append(.index(index))
            } else {
                steps.append(.key(String(part)))
            }
        }
        self.components = steps
    }

    /// The dotted form, `$` for the root.
    public var description: String {
        components.isEmpty
            ? "$"
            : components.map { step in
                switch step {
                case .key(let key): key
                case .index(let index): String(index)
                }
            }.joined(separator: ".")
    }
}
