/// One element of the items array found by `JSONScanner.scan`, located by its bytes in the scanned input.
///
/// Eight bytes an item, not a `Range<Int>` and a `Bool` (24 with padding): a page of tiny items (an id list of
/// `[0,0,0,…]`, 8 million items in 16 MB) held 24 bytes of positions for every 2 bytes of page, ~15× the page in
/// memory (attack5 F3). Offsets fit 31 bits: pages are at most 1 GiB (`maxPageBytes`), stored entries keep them as
/// 32-bit numbers already, and the scanner refuses a larger input (`JSONScanError.tooLarge`).
package struct JSONItem: Sendable, Equatable {
    /// The largest offset an item can have (`range.upperBound`).
    package static let maxOffset = Int(Int32.max)

    private var start: UInt32
    /// The range's end in the low 31 bits, `isCompact` in the top one.
    private var endAndCompact: UInt32

    private static let compactBit: UInt32 = 1 << 31

    /// - Precondition: `range.upperBound <= JSONItem.maxOffset` (callers scan inputs no larger).
    package init(range: Range<Int>, isCompact: Bool) {
        precondition(range.lowerBound >= 0 && range.upperBound <= Self.maxOffset, "an item past JSONItem.maxOffset")
        start = UInt32(range.lowerBound)
        endAndCompact = UInt32(range.upperBound) | (isCompact ? Self.compactBit : 0)
    }

    /// The item's byte range in the scanned input (from its first byte to its last, no surrounding whitespace).
    package var range: Range<Int> {
        get { Int(start)..<Int(endAndCompact & ~Self.compactBit) }
        set { self = JSONItem(range: newValue, isCompact: isCompact) }
    }

    /// True when the range holds no whitespace outside strings, so it can be copied as is.
    package var isCompact: Bool {
        get { endAndCompact & Self.compactBit != 0 }
        set { endAndCompact = newValue ? endAndCompact | Self.compactBit : endAndCompact & ~Self.compactBit }
    }
}
