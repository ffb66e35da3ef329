/// One upstream page: where it came from, what the upstream said, and where its items lie in the body.
public struct Page: Sendable {
    /// The page's position in the walk, from 1.
    public let number: Int
    /// The URL the page was fetched from.
    public let url: PageURL
    package let status: HTTPStatus
    package let headers: HTTPHeaders
    /// The body exactly as the upstream sent it.
    public let body: [UInt8]
    /// Where each item lies in `body`, in order.
    package var items: [JSONItem] {
        didSet { storedIsCommaRun = nil }
    }
    /// Whether the items are one run joined by single commas (`commaSeparatedItems`), as the cache worked it out when
    /// it stored or read this body; nil: worked out when asked. Any edit of `items` forgets it. (Issue 13, seventh
    /// pass: the check reads a byte between each two items of a body nothing else reads on a warm walk, a cache miss
    /// an item: ~7 % of a warm 10 MB read-back.)
    package var storedIsCommaRun: Bool?
    /// Values at the JSON paths the pagination scheme asked for (next URL, cursor, total, …).
    package let values: [JSONPath: JSONValue]
    /// The XXH64 of `body` when the page cache holds this very body: the page's identity in an aggregate's `ETag`.
    package var storedChecksum: UInt64?
    /// The open entry file whose body is exactly `body` (the page cache read and verified it from there): a merged
    /// answer sends the page's items from it (issue 13, eighth pass). `body` is a constant, so it stays exact.
    package var bodyFile: HeldEntryFile?
    /// The body verified in its entry file and not kept in memory (`body` is then empty; only the items' places are
    /// known): a merged answer sends the items' run from the file (issue 13, fourteenth pass). Any other reader of the
    /// bytes reads them first (`withBodyRead`).
    package var bodyInFile: BodyInFile?

    package init(
        number: Int, url: PageURL, status: HTTPStatus, headers: HTTPHeaders, body: [UInt8], items: [JSONItem],
        values: [JSONPath: JSONValue]
    ) {
        self.number = number
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.items = items
        self.values = values
    }

    /// How many items the page holds.
    public var itemCount: Int { items.count }

    /// The upstream's status code for this page.
    public var statusCode: Int { status.code }

    /// The first value of a response header of this page.
    public func header(_ name: String) -> String? { headers[name] }

    /// The bytes of every item, each compact (no whitespace outside strings), in order.
    public var itemBytes: [[UInt8]] {
        items.map { item in
            var bytes: [UInt8] = []
            JSONScanner.appendItem(item, of: body, to: &bytes)
            return bytes
        }
    }

    /// Appends the items to `output`, each preceded by `prefix`, followed by `suffix`, and separated by `separator`.
    package func appendItems(to output: inout [UInt8], separator: [UInt8] = [], suffix: [UInt8] = []) {
        // A body left in its file is read first: the paths that copy items are given pages with their bodies, and this
        // keeps any other from reading past an empty array (review16 B2). One that fails its check adds nothing.
        guard bodyInFile == nil else {
            withBodyRead()?.appendItems(to: &output, separator: separator, suffix: suffix)
            return
        }
        // Compact items that follow one another with exactly the separator between them (a compact upstream array,
        // merged with ","): the whole run is one copy, not one per item (issue 13: splicing was a third of a walk).
        if suffix.isEmpty, separator.count == 1, let run = contiguousRun(separatedBy: separator[0]) {
            body.withUnsafeBufferPointer { output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[run])) }
            return
        }
        // NDJSON's lines of such a run: the same one copy, each `,` between items turned into the line's end.
        if separator.isEmpty, suffix.count == 1, let run = contiguousRun(separatedBy: UInt8(ascii: ",")) {
            let start = output.count
            body.withUnsafeBufferPointer { output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[run])) }
            for item in items.dropLast() { output[start + item.range.upperBound - run.lowerBound] = suffix[0] }
            output.append(suffix[0])
            return
        }
        for (index, item) in items.enumerated() {
            if index > 0 { output.append(contentsOf: separator) }
            JSONScanner.appendItem(item, of: body, to: &output)
            output.append(contentsOf: suffix)
        }
    }

    /// The bytes of `body` that are exactly the items joined by `,` (a compact upstream array's inside), when there
    /// are such bytes: a merged answer of this page alone is `[`, them, `]`, sent from the body uncopied (issue 13).
    package var commaSeparatedItems: Range<Int>? { contiguousRun(separatedBy: UInt8(ascii: ",")) }

    /// The range from the first item to the last when every item is compact and each is followed by `separator`
    /// alone; nil otherwise.
    private func contiguousRun(separatedBy separator: UInt8) -> Range<Int>? {
        // A body not in memory: the items' places alone say it (`StoredScan.isAdjacentRun`), for a window's cut too.
        if bodyInFile != nil {
            guard separator == UInt8(ascii: ","), StoredScan.isAdjacentRun(items), let first = items.first, let last = items.last else { return nil }
            return first.range.lowerBound..<last.range.upperBound
        }
        if separator == UInt8(ascii: ","), let known = storedIsCommaRun {
            guard known, let first = items.first, let last = items.last else { return nil }
            return first.range.lowerBound..<last.range.upperBound
        }
        return Self.contiguousRun(of: items, in: body, separatedBy: separator)
    }

    /// The range from the first of `items` to the last when every item is compact and each is followed by
    /// `separator` alone in `body`; nil otherwise.
    package static func contiguousRun(of items: [JSONItem], in body: [UInt8], separatedBy separator: UInt8) -> Range<Int>? {
        items.withUnsafeBufferPointer { items -> Range<Int>? in
            guard let first = items.first, let last = items.last, first.isCompact, last.range.upperBound <= body.count else { return nil }
            return body.withUnsafeBufferPointer { body -> Range<Int>? in
                var gap = first.range.upperBound
                for item in items.dropFirst() {
                    guard item.isCompact, gap + 1 == item.range.lowerBound, gap < body.count, body[gap] == separator else { return nil }
                    gap = item.range.upperBound
                }
                return first.range.lowerBound..<last.range.upperBound
            }
        }
    }

    /// The page with its body in memory: read back from its file and checked when it was left there (`bodyInFile`);
    /// nil when that fails (the store is told, and removes the entry). Every other field is kept.
    package func withBodyRead() -> Page? {
        guard let bodyInFile else { return self }
        guard let bytes = bodyInFile.read() else { return nil }
        return replacingBody(bytes, file: bodyInFile.file)
    }

    /// The page with `body` in place of its own (the same bytes, now in memory), sent from `file`.
    private func replacingBody(_ body: [UInt8], file: HeldEntryFile) -> Page {
        var page = Page(number: number, url: url, status: status, headers: headers, body: body, items: items, values: values)
        page.storedIsCommaRun = storedIsCommaRun
        page.storedChecksum = storedChecksum
        page.bodyFile = file
        return page
    }

    /// Keeps only the first `count` items.
    package mutating func truncateItems(to count: Int) {
        if items.count > count { items.removeLast(items.count - count) }
    }
}
