/// Stripe's `has_more` flag, continuing with `starting_after=<id of the last item>`.
struct HasMoreStrategy: PaginationStrategy {
    let options: PaginationScheme.HasMore

    var valuePaths: [JSONPath] { [options.hasMorePath] }

    var followsUpstream: Bool { true }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        switch page.values[options.hasMorePath] {
        case nil, .null?: return .none
        case let value?:
            guard let more = value.flag else {
                // A flag that is neither yes nor no: ending here could drop the rest of the list without a word.
                throw .cannotContinue(page: page.number, reason: "\(options.hasMorePath) holds neither true nor false")
            }
            guard more else { return .none }
        }
        guard let last = page.items.last else {
            throw .cannotContinue(page: page.number, reason: "has_more is true but the page has no items to continue after")
        }
        let id: String
        switch try? JSONScanner().value(in: page.body, range: last.range, at: options.idPath) {
        case .string(let text): id = text
        case .number(let text): id = text
        default:
            throw .cannotContinue(page: page.number, reason: "the last item has no string or number at \(options.idPath)")
        }
        return .one(page.url.settingQueryValue(id, for: options.afterParameter))
    }
}
