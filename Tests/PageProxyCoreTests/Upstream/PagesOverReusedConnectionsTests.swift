import Testing

@testable import PageProxyCore

/// stray19: a walk's pages read over reused connections become suspect once their origin is caught.
@Suite struct PagesOverReusedConnectionsTests {
    private static func page(_ number: Int) -> PageURL {
        PageURL(scheme: "http", host: "127.0.0.1", port: 9, path: "/items", query: "page=\(number)")
    }

    private static func response(over watch: OriginStrayWatch?) -> UpstreamResponse {
        var response = UpstreamResponse(status: HTTPStatus(code: 200), headers: HTTPHeaders(), body: Array("[]".utf8))
        response.reusedConnection = watch
        return response
    }

    @Test("pages read over reused connections are suspect once their origin is caught, whichever page notes it; pages of new connections never are")
    func pagesOverReusedConnectionsOfACaughtOriginAreSuspect() {
        let pages = PagesOverReusedConnections()
        let watch = OriginStrayWatch(caught: false)
        #expect(!pages.note(Self.response(over: nil), at: Self.page(1)))
        #expect(!pages.note(Self.response(over: watch), at: Self.page(2)))
        #expect(!pages.foundSuspect)
        watch.noteCaught()
        // Page 3 came over a new connection (the one asked again after the catch): page 2 is suspect all the same.
        #expect(pages.note(Self.response(over: nil), at: Self.page(3)))
        #expect(pages.foundSuspect)
        #expect(pages.suspectURLs == [Self.page(2)])
    }

    @Test("fix37: the suspect pages' versions are those their fetches stored, and only theirs (a page not stored has none)")
    func suspectVersionsAreTheStoredOnes() throws {
        let pages = PagesOverReusedConnections()
        let (caught, sane) = (OriginStrayWatch(caught: false), OriginStrayWatch(caught: false))
        let stamp = { (page: Int) in PageStamp(key: DiskStoreTests.key(page), generation: UInt64(page)) }
        #expect(!pages.note(Self.response(over: caught), at: Self.page(1), stored: stamp(1)))
        #expect(!pages.note(Self.response(over: sane), at: Self.page(2), stored: stamp(2)))
        #expect(!pages.note(Self.response(over: nil), at: Self.page(3), stored: stamp(3)))
        #expect(!pages.note(Self.response(over: caught), at: Self.page(4)))
        caught.noteCaught()
        #expect(pages.note(Self.response(over: caught), at: Self.page(5), stored: stamp(5)))
        #expect(pages.suspectVersions == [stamp(1), stamp(5)])
        #expect(pages.suspectURLs == [Self.page(1), Self.page(4), Self.page(5)])
    }

    @Test("another origin's watch, never caught, makes no page suspect")
    func anUncaughtOriginsPagesAreNotSuspect() {
        let pages = PagesOverReusedConnections()
        let (caught, sane) = (OriginStrayWatch(caught: true), OriginStrayWatch(caught: false))
        #expect(!pages.note(Self.response(over: sane), at: Self.page(1)))
        #expect(pages.note(Self.response(over: caught), at: Self.page(2)))
        #expect(pages.suspectURLs == [Self.page(2)])
    }
}
