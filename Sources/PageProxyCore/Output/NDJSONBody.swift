/// Frames pages' items as newline-delimited JSON: each item on its own line.
package enum NDJSONBody {
    /// The lines that carry `page`'s items. Items are compacted, so none contains a raw newline.
    package static func bytes(for page: Page) -> [UInt8] {
        var output: [UInt8] = []
        append(page, to: &output)
        return output
    }

    /// Appends the lines that carry `page`'s items to `output`.
    package static func append(_ page: Page, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + page.body.count + page.itemCount)
        page.appendItems(to: &output, suffix: [UInt8(ascii: "\n")])
    }
}
