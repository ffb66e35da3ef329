/// The last line of an NDJSON stream that lost a page.
///
/// DESIGN.md: it must not be mistakable for an item. Every item is one JSON value on its line; this line starts
/// with `!pageproxy-error ` and so is not JSON at all: a reader that parses each line as JSON fails on it rather
/// than taking it for data, and a person sees the JSON error object after the marker. The connection then closes
/// without the last chunk, so HTTP clients report an incomplete transfer as well.
package enum StreamFailureLine {
    package static let marker = "!pageproxy-error "

    /// The line for an error whose JSON form is `errorJSON` (`{"error":{…}}`), newline included.
    package static func make(errorJSON: [UInt8]) -> [UInt8] {
        var line = Array(marker.utf8)
        line += errorJSON.filter { $0 != UInt8(ascii: "\n") }
        line.append(UInt8(ascii: "\n"))
        return line
    }
}
