import PageProxyCore

/// What a merged answer of one page fresh in the cache and the last (`InMemoryAnswer`) says besides its per-request
/// fields, worked out once for one stored version of that page (its `PageStamp`) and kept with the request's plan: a
/// repeat whose lookup finds the same version sends the page's run of items between the same brackets with the same
/// fields, with no page made, no scheme asked whether it is the last, no tag hashed and no fields built again
/// (issue 13, twenty-fifth pass: all of that was done for each 10 KB walk of one page, with the memo off).
///
/// It holds no byte of the page: the body is the one the request's own lookup hands over, so the page cache's memory
/// bound is what bounds it, and a version the store no longer holds is never sent. Any write, 304 refresh, removal
/// or eviction gives the page a new generation (`PageStamp`): the next request works the answer out again.
final class PreparedOnePageAnswer: Sendable {
    /// The stored version of the page it was worked out from.
    let stamp: PageStamp
    /// The page's items in its body (empty for a page of none).
    let run: Range<Int>
    /// What goes before and after them (`MergedJSONBody`: `[` and `]`).
    let prefix: [UInt8]
    let closing: [UInt8]
    let items: Int
    let etag: String
    /// The answer's own fields (`MergedAnswerHeaders.make`, the walk's `PageProxy-Total` first), without the
    /// per-request ones (`Cache-Control`, `Vary`, `Age`, `Server-Timing`) and the length.
    let fields: HTTPHeaders

    init(stamp: PageStamp, run: Range<Int>, prefix: [UInt8], closing: [UInt8], items: Int, etag: String, fields: HTTPHeaders) {
        self.stamp = stamp
        self.run = run
        self.prefix = prefix
        self.closing = closing
        self.items = items
        self.etag = etag
        self.fields = fields
    }

    /// The answer's body parts for `response`, the page as a lookup found it at this answer's `stamp`: held as
    /// `MergedHeldPages.hold` holds it (the run sent from the entry's file when the entry has one, else from the body),
    /// nil when that would take more than `allowance` of memory (the walk's holding borrows from the process's budget
    /// then: the full answer decides) or the body does not have the run (never, for the same version).
    func parts(of response: UpstreamResponse, allowance: Int) -> [ResponseBodyPart]? {
        let file = run.isEmpty ? nil : response.bodyInFile?.file ?? response.storedFile
        if file == nil, !run.isEmpty, run.upperBound > response.body.count { return nil }
        let kept = run.isEmpty || file != nil ? 0 : response.body.capacity
        guard kept <= allowance else { return nil }
        var parts: [ResponseBodyPart] = []
        parts.reserveCapacity(3)
        parts.append(.bytes(prefix[...]))
        if let file {
            parts.append(.file(file, run))
        } else if !run.isEmpty {
            parts.append(.bytes(response.body[run]))
        }
        parts.append(.bytes(closing[...]))
        return parts
    }
}
