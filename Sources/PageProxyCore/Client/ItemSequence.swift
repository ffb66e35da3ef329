/// The items of a paginated source as their raw JSON bytes, each compact, in upstream order.
///
/// Its iterator has the value semantics of ``PageSequence/Iterator``.
public struct ItemSequence: AsyncSequence, Sendable {
    /// One item's JSON bytes, exactly as the upstream wrote them (whitespace between tokens dropped).
    public typealias Element = [UInt8]
    /// Why the walk ended early.
    public typealias Failure = PaginationError

    let pages: PageSequence

    /// A new walk over the source.
    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: pages.makeAsyncIterator())
    }

    /// One walk over the items.
    public struct Iterator: AsyncIteratorProtocol {
        var pages: PageSequence.Iterator
        var pending: [[UInt8]] = []
        var index = 0

        /// The next item's bytes, `nil` after the last.
        public mutating func next() async throws(PaginationError) -> [UInt8]? {
            while index == pending.count {
                guard let page = try await pages.next() else { return nil }
                pending = page.itemBytes
                index = 0
            }
            defer { index += 1 }
            return pending[index]
        }
    }
}
