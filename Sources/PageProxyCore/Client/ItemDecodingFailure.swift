/// An item that did not decode as a typed walk's `Item`: where it was, and the decoder's own error.
public struct ItemDecodingFailure: Error, Sendable, CustomStringConvertible {
    /// The page the item is on, from 1.
    public let page: Int
    /// The page's URL.
    public let url: PageURL
    /// The item's index within its page, from 0.
    public let index: Int
    /// The item's index within the whole walk, from 0.
    public let offset: Int
    /// Why `JSONDecoder` refused it; its coding path starts at the item.
    public let error: DecodingError

    /// A failure; made by the walk, and by tests that stand in for one.
    public init(page: Int, url: PageURL, index: Int, offset: Int, error: DecodingError) {
        self.page = page
        self.url = url
        self.index = index
        self.offset = offset
        self.error = error
    }

    /// Which item failed to decode, and why.
    public var description: String {
        "item \(index) of page \(page) (item \(offset) of the walk) does not decode: \(error)"
    }
}
