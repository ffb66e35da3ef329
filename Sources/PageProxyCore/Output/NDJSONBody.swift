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
        // Room for the page's lines; growing geometrically, since an exact reservation per page appended to a batch
        // would copy the whole batch each time.
        let needed = output.count + page.body.count + page.itemCount
        if output.capacity < needed { output.reserveCapacity(max(needed, output.capacity * 2)) }
        page.appendItems(to: &output, suffix: [UInt8(ascii: "\n")])
    }
}
