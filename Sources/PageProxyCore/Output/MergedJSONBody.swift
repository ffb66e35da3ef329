/// Frames pages' items as one JSON array: `[` before the first item, `,` between items, `]` at the end.
package struct MergedJSONBody: Sendable {
    private var hasItems = false
    private var hasOpened = false

    package init() {}

    /// The bytes that carry `page`'s items, to be sent after those of the pages before it.
    package mutating func bytes(for page: Page) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(page.body.count + 2)
        append(page, to: &output)
        return output
    }

    /// Appends `page`'s items to `output`.
    package mutating func append(_ page: Page, to output: inout [UInt8]) {
        if !hasOpened {
            output.append(UInt8(ascii: "["))
            hasOpened = true
        }
        guard page.itemCount > 0 else { return }
        if hasItems { output.append(UInt8(ascii: ",")) }
        page.appendItems(to: &output, separator: [UInt8(ascii: ",")])
        hasItems = true
    }

    /// The bytes that close the array (and open it, if no page came).
    package mutating func closing() -> [UInt8] {
        defer { hasOpened = true }
        return hasOpened ? [UInt8(ascii: "]")] : Array("[]".utf8)
    }
}
