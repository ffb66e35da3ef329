/// One element of the items array found by `JSONScanner.scan`, located by its bytes in the scanned input.
package struct JSONItem: Sendable, Equatable {
    /// The item's byte range in the scanned input (from its first byte to its last, no surrounding whitespace).
    package var range: Range<Int>
    /// True when the range holds no whitespace outside strings, so it can be copied as is.
    package var isCompact: Bool

    package init(range: Range<Int>, isCompact: Bool) {
        self.range = range
        self.isCompact = isCompact
    }
}
