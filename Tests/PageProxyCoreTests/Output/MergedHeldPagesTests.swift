import Testing

@testable import PageProxyCore

/// Issue 13: a merged answer's pages wait uncopied and leave as slices of their own bodies; the bytes and the ETag
/// are those the copy into a `SpooledBody` gives, and their memory is charged as the copy's would be.
@Suite struct MergedHeldPagesTests {
    private static func pages(_ bodies: [String], checksum: UInt64? = 7) throws -> [Page] {
        try bodies.map { try AggregateETagTests.page($0, checksum: checksum) }
    }

    /// The answer as the copy makes it: `MergedJSONBody` into one array.
    private static func copied(_ pages: [Page]) -> [UInt8] {
        var framing = MergedJSONBody()
        var bytes: [UInt8] = []
        for page in pages { framing.append(page, to: &bytes) }
        return bytes + framing.closing()
    }

    private static func held(allowance: Int = 1 << 20, budget: HeldBytesBudget? = nil, maxBytes: Int = 1 << 30) -> MergedHeldPages {
        MergedHeldPages(allowance: allowance, budget: budget, maxBytes: maxBytes)
    }

    @Test("pages whose items lie in one run are held uncopied: their slices are the copy's bytes, with the copy's tag")
    func heldPagesAreTheCopysBytesAndTag() throws {
        for bodies in [["[1,2]", "[3]"], ["[]", "[1,2]", "[]", "[3,4]"], ["[]"], ["[1]", "[]"], ["[{\"a\":1},{\"b\":[2,3]}]", "[4]"]] {
            for checksum in [7, nil] as [UInt64?] {
                let pages = try Self.pages(bodies, checksum: checksum)
                let held = Self.held()
                var (framing, etag) = (MergedJSONBody(), AggregateETag(shape: "root"))
                for page in pages { #expect(held.hold(page, framing: &framing, etag: &etag), "\(bodies)") }
                let closing = framing.closing()
                etag.update(closing)
                let sent = held.parts(closing: closing).reduce(into: [UInt8]()) { $0 += $1.bytes ?? [] }
                #expect(sent == Self.copied(pages), "\(bodies)")
                // The closing bracket joins the parts once, however often they are asked for.
                #expect(held.parts(closing: closing).reduce(into: [UInt8]()) { $0 += $1.bytes ?? [] } == sent)
                #expect(held.joined(closing: closing) == sent)
                #expect(held.length + closing.count == sent.count)
                #expect(etag.finalize() == AggregateETagTests.tag(pages), "\(bodies) \(String(describing: checksum))")
            }
        }
    }

    @Test("a page whose items are not one run ends the holding: what was held moves into the body, bytes and tag unchanged")
    func aPageThatIsNotOneRunMovesTheHeldOnes() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let path = directory.path
        let pages = try Self.pages(["[1,2]", "[]", "[3, 4]", "[5]"])
        let body = SpooledBody(limits: SpooledBody.Limits(), openSpool: { () throws(SpoolError) in try SpoolFile.create(in: path) })
        let held = Self.held()
        var (framing, etag) = (MergedJSONBody(), AggregateETag(shape: "root"))
        var movedAt: Int?
        for (index, page) in pages.enumerated() {
            if held.hold(page, framing: &framing, etag: &etag) { continue }
            if held.partCount > 0 {
                movedAt = index
                try held.move(into: body)
            }
            try body.append(atMost: page.body.count + 2) { framing.append(page, to: &$0) } appended: { etag.add(page, framed: $0) }
        }
        let closing = framing.closing()
        etag.update(closing)
        try body.append(closing)
        #expect(movedAt == 2, "held until the page with a space between its items")
        #expect(!held.isHolding && held.partCount == 0)
        #expect(try body.bytes() == Self.copied(pages))
        #expect(etag.finalize() == AggregateETagTests.tag(pages))
    }

    @Test("held bodies take the answer's allowance, then borrow from the budget, and give it back; a refusal ends the holding")
    func heldBodiesAreChargedToTheBudget() throws {
        let budget = HeldBytesBudget(capacity: HeldBytesLoan.step)
        let page = try AggregateETagTests.page("[" + String(repeating: "1,", count: 50_000) + "1]", checksum: 7)
        var held: MergedHeldPages? = Self.held(allowance: 110_000, budget: budget)
        var (framing, etag) = (MergedJSONBody(), AggregateETag(shape: "root"))
        #expect(held?.hold(page, framing: &framing, etag: &etag) == true, "100 KB within the allowance")
        #expect(budget.availableBytes == HeldBytesLoan.step)
        #expect(held?.hold(page, framing: &framing, etag: &etag) == true, "200 KB: one step borrowed")
        #expect(budget.availableBytes == 0)
        #expect(held?.hold(page, framing: &framing, etag: &etag) == true, "300 KB: within the allowance and the step (372 KB)")
        #expect(held?.hold(page, framing: &framing, etag: &etag) == false, "400 KB: the budget is spent")
        #expect(held?.isHolding == false)
        #expect(held?.hold(try AggregateETagTests.page("[1]", checksum: 7), framing: &framing, etag: &etag) == false, "never again")
        held = nil
        #expect(budget.availableBytes == HeldBytesLoan.step, "given back when the answer is done")
    }

    @Test("a held body is charged the memory it takes (its capacity), not the bytes it holds")
    func aHeldBodyIsChargedItsCapacity() throws {
        var bytes = Array("[1,2]".utf8)
        bytes.reserveCapacity(300_000)
        let page = Page(
            number: 1, url: PageURL(string: "http://api.test/items")!, status: .ok, headers: HTTPHeaders(), body: bytes,
            items: try JSONScanner().scan(bytes, itemsAt: .root).items, values: [:])
        var (framing, etag) = (MergedJSONBody(), AggregateETag(shape: "root"))
        #expect(Self.held(allowance: 100_000).hold(page, framing: &framing, etag: &etag) == false, "5 bytes in 300 KB of memory")
        let budget = HeldBytesBudget(capacity: HeldBytesLoan.step)
        var held: MergedHeldPages? = Self.held(allowance: 100_000, budget: budget)
        #expect(held?.hold(page, framing: &framing, etag: &etag) == true)
        #expect(budget.availableBytes == 0, "the 200 KB past the allowance borrowed")
        held = nil
        #expect(budget.availableBytes == HeldBytesLoan.step)
    }

    @Test("an answer past the route's cap is not held (the copy refuses it)")
    func pastTheCapNothingIsHeld() throws {
        let held = Self.held(maxBytes: 6)
        var (framing, etag) = (MergedJSONBody(), AggregateETag(shape: "root"))
        #expect(held.hold(try AggregateETagTests.page("[1,2]", checksum: 7), framing: &framing, etag: &etag), "[1,2] is 5 bytes")
        #expect(!held.hold(try AggregateETagTests.page("[3]", checksum: 7), framing: &framing, etag: &etag), "[1,2,3] is 7")
    }
}
