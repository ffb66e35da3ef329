/// Frames pages' items as newline-delimited JSON: each item on its own line.
package enum NDJSONBody {
    /// The lines that carry `page`'s items. Items are compacted, so none contains a raw newline.
    package static func bytes(for page: Page) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(page.body.count + page.itemCount)
        page.appendItems(to: &output, suffix: [UInt8(ascii: "\n")])
        return output
    }
}
