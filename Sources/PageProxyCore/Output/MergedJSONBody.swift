/// Frames pages' items as one JSON array: `[` before the first item, `,` between items, `]` at the end.
package struct MergedJSONBody: Sendable {
    private var hasItems = false
    private var hasOpened = false

    package init() {}

    private static let opening: [UInt8] = [UInt8(ascii: "[")]
    private static let comma: [UInt8] = [UInt8(ascii: ",")]

    /// The bytes that carry `page`'s items, to be sent after those of the pages before it.
    package mutating func bytes(for page: Page) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(page.body.count + 2)
        append(page, to: &output)
        return output
    }

    /// Appends `page`'s items to `output`.
    package mutating func append(_ page: Page, to output: inout [UInt8]) {
        output += prefix(for: page)
        guard page.itemCount > 0 else { return }
        page.appendItems(to: &output, separator: Self.comma)
    }

    /// What goes before `page`'s items (`[`, `,` or nothing), as `append` writes it; the framing moves past the page.
    /// A caller that sends the items from the page's own body writes this, then them (issue 13: no copy).
    package mutating func prefix(for page: Page) -> [UInt8] {
        let opens = !hasOpened
        hasOpened = true
        guard page.itemCount > 0 else { return opens ? Self.opening : [] }
        defer { hasItems = true }
        if opens { return Self.opening }
        return hasItems ? Self.comma : []
    }

    /// The bytes that close the array (and open it, if no page came).
    package mutating func closing() -> [UInt8] {
        defer { hasOpened = true }
        return hasOpened ? [UInt8(ascii: "]")] : Array("[]".utf8)
    }
}
