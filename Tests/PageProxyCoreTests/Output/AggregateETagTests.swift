import Testing

@testable import PageProxyCore

/// The merged answer's ETag: from stored pages' checksums and the request's shape, or from the bytes of pages that
/// were not stored; any change to what the answer's bytes would be changes it.
@Suite struct AggregateETagTests {
    static func page(_ body: String, checksum: UInt64?, keep: Int? = nil) throws -> Page {
        let bytes = Array(body.utf8)
        var page = Page(
            number: 1, url: PageURL(string: "http://api.test/items")!, status: .ok, headers: HTTPHeaders(), body: bytes,
            items: try JSONScanner().scan(bytes, itemsAt: .root).items, values: [:])
        page.storedChecksum = checksum
        if let keep { page.truncateItems(to: keep) }
        return page
    }

    /// The tag of an answer of `pages`, framed as the merged output frames them.
    static func tag(_ pages: [Page], shape: String = "root") -> String {
        var etag = AggregateETag(shape: shape)
        var framing = MergedJSONBody()
        for page in pages {
            var bytes: [UInt8] = []
            framing.append(page, to: &bytes)
            etag.add(page, framed: bytes)
        }
        etag.update(framing.closing())
        return etag.finalize()
    }

    @Test("If-Match compares strongly (a weak tag never matches), If-None-Match weakly; * matches any answer, one with no tag too")
    func ifMatchIsStrongAndIfNoneMatchWeak() {
        let tag = "\"abc\""
        #expect(AggregateETag.matches(ifMatch: ["\"x\", \"abc\""], etag: tag))
        #expect(!AggregateETag.matches(ifMatch: ["W/\"abc\""], etag: tag))
        #expect(!AggregateETag.matches(ifMatch: [tag], etag: "W/" + tag))
        #expect(!AggregateETag.matches(ifMatch: [tag], etag: nil))
        #expect(AggregateETag.matches(ifMatch: ["*"], etag: nil))
        #expect(AggregateETag.matches(ifNoneMatch: ["W/\"abc\""], etag: tag))
        #expect(!AggregateETag.matches(ifNoneMatch: [tag], etag: nil))
        #expect(AggregateETag.matches(ifNoneMatch: [" * "], etag: nil))
    }

    @Test("* in a list with tags is invalid (RFC 9110 §13.1.1): only its tags count, so If-Match fails and If-None-Match is no 304")
    func aStarAmongTagsIsNotAStar() {
        let tag = "\"abc\""
        for field in [["\"x\", *"], ["*, \"x\""], ["\"x\"", "*"]] {
            #expect(!AggregateETag.matches(ifMatch: field, etag: tag), "\(field)")
            #expect(!AggregateETag.matches(ifMatch: field, etag: nil), "\(field)")
            #expect(!AggregateETag.matches(ifNoneMatch: field, etag: tag), "\(field)")
            #expect(!AggregateETag.matches(ifNoneMatch: field, etag: nil), "\(field)")
        }
        // A tag in such a list still matches; `*` alone (or split over lines as `*` only) is still any answer.
        #expect(AggregateETag.matches(ifMatch: ["\"abc\", *"], etag: tag))
        #expect(AggregateETag.matches(ifNoneMatch: ["*, W/\"abc\""], etag: tag))
        #expect(AggregateETag.matches(ifMatch: ["*", ""], etag: nil))
    }

    @Test func theSameStoredPagesGiveTheSameTag() throws {
        let pages = [try Self.page("[1,2]", checksum: 7), try Self.page("[3]", checksum: 8)]
        #expect(Self.tag(pages) == Self.tag(pages))
        #expect(Self.tag(pages).hasPrefix("\"") && Self.tag(pages).count == 34)
    }

    @Test func aChangedPageTruncationOrShapeChangesTheTag() throws {
        let base = Self.tag([try Self.page("[1,2]", checksum: 7), try Self.page("[3]", checksum: 8)])
        #expect(Self.tag([try Self.page("[1,2]", checksum: 7), try Self.page("[3]", checksum: 9)]) != base)
        #expect(Self.tag([try Self.page("[1,2]", checksum: 7), try Self.page("[3]", checksum: 8, keep: 0)]) != base)
        #expect(Self.tag([try Self.page("[1,2]", checksum: 7)]) != base)
        #expect(Self.tag([try Self.page("[3]", checksum: 8), try Self.page("[1,2]", checksum: 7)]) != base)
        #expect(Self.tag([try Self.page("[1,2]", checksum: 7), try Self.page("[3]", checksum: 8)], shape: "data") != base)
    }

    /// Issue 13: a tag costs two XXH64s of a few dozen bytes a page, no SHA-256 over anything a page stored. The
    /// value is pinned: a client's `If-None-Match` from another process (a restart, a replica) must still match.
    @Test("the tag of stored pages is two keyed XXH64s of their records, the same in every process")
    func theTagOfStoredPagesIsPinned() throws {
        let pages = [try Self.page("[1,2]", checksum: 7), try Self.page("[3]", checksum: 8)]
        #expect(Self.tag(pages) == "\"8613b0316e4888e97da32ecd84c3fd35\"")
    }

    @Test("a page that was not stored is identified by its bytes")
    func anUnstoredPageCountsByItsBytes() throws {
        let one = Self.tag([try Self.page("[1, 2]", checksum: nil)])
        #expect(Self.tag([try Self.page("[1,2]", checksum: nil)]) == one, "the same items, compacted alike")
        #expect(Self.tag([try Self.page("[1,3]", checksum: nil)]) != one)
        #expect(Self.tag([try Self.page("[1,2]", checksum: 7)]) != one)
    }
}
