import Foundation

/// The items of a paginated source decoded as `Item`, in upstream order.
///
/// Each page's items are decoded together, as one array, so the typed walk costs what decoding the merged array
/// with `JSONDecoder` would (see BENCHMARKS.md). An item that does not decode ends the sequence with
/// ``PaginationError/itemDecodingFailed(_:)``, which names its page, its URL and its index. Its iterator has the
/// value semantics of ``PageSequence/Iterator``.
public struct DecodedItemSequence<Item: Decodable>: AsyncSequence, Sendable {
    /// An item.
    public typealias Element = Item
    /// Why the walk ended early, including an item that does not decode.
    public typealias Failure = PaginationError

    let pages: PageSequence
    let decoder: JSONDecoder

    /// A new walk over the source.
    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: pages.makeAsyncIterator(), decoder: decoder)
    }

    /// One walk over the decoded items.
    public struct Iterator: AsyncIteratorProtocol {
        var pages: PageSequence.Iterator
        let decoder: JSONDecoder
        var pending: [Item] = []
        var index = 0
        /// Items of the pages before the current one.
        var itemsBefore = 0

        /// The next item, `nil` after the last.
        public mutating func next() async throws(PaginationError) -> Item? {
            while index == pending.count {
                guard let page = try await pages.next() else { return nil }
                itemsBefore += pending.count
                pending = []
                pending = try decodeItems(of: page)
                index = 0
            }
            defer { index += 1 }
            return pending[index]
        }

        private func decodeItems(of page: Page) throws(PaginationError) -> [Item] {
            // The page's items spliced into one JSON array: one decode per page, not one per item.
            var array: [UInt8] = [UInt8(ascii: "[")]
            array.reserveCapacity(page.body.count + 2)
            page.appendItems(to: &array, separator: [UInt8(ascii: ",")])
            array.append(UInt8(ascii: "]"))
            do {
                return try decoder.decode([Item].self, from: Data(array))
            } catch {
                throw .itemDecodingFailed(failure(in: page, arrayError: error))
            }
        }

        /// Which item failed, found by decoding the page's items one by one, so the error's coding path starts at the
        /// item, not at the spliced array.
        private func failure(in page: Page, arrayError: any Error) -> ItemDecodingFailure {
            for (index, bytes) in page.itemBytes.enumerated() {
                do {
                    _ = try decoder.decode(Item.self, from: Data(bytes))
                } catch let error as DecodingError {
                    return ItemDecodingFailure(page: page.number, url: page.url, index: index, offset: itemsBefore + index, error: error)
                } catch {
                    continue
                }
            }
            let index = (arrayError as? DecodingError).flatMap { Self.codingPath(of: $0).first?.intValue } ?? 0
            let error = arrayError as? DecodingError
                ?? .dataCorrupted(.init(codingPath: [], debugDescription: "\(arrayError)", underlyingError: arrayError))
            return ItemDecodingFailure(page: page.number, url: page.url, index: index, offset: itemsBefore + index, error: error)
        }

        private static func codingPath(of error: DecodingError) -> [any CodingKey] {
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
                .dataCorrupted(let context):
                context.codingPath
            @unknown default: []
            }
        }
    }
}
