@testable import PageProxyCore

extension PageWalker {
    /// A walker over `transport`, from `base` (a literal), each failed fetch reported as `.upstreamFailed`.
    static func make(
        _ scheme: PaginationScheme, transport: FakeTransport, base: String = "http://api.test/items",
        configure: (inout Options) -> Void = { _ in }
    ) -> PageWalker {
        var options = Options()
        configure(&options)
        let base = PageURL(string: base)!
        return PageWalker(base: base, scheme: scheme, options: options) { url, number throws(PaginationError) in
            do throws(UpstreamError) {
                return try await transport.send(UpstreamRequest(url: url), timeout: .seconds(5), maxBodyBytes: 1 << 20)
            } catch {
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
    }

    /// Every item of a walk over `transport`, in order, through `walk` (the renderers' way).
    static func items(
        _ scheme: PaginationScheme, transport: FakeTransport, configure: (inout Options) -> Void = { _ in }
    ) async throws(PaginationError) -> [[UInt8]] {
        try await make(scheme, transport: transport, configure: configure).pages().flatMap(\.itemBytes)
    }

    /// Every page of the walk, in order, through `walk`; `inspect` sees each as it is handed out (the walker's state
    /// then is what the renderers see).
    func pages(_ inspect: (Page) -> Void = { _ in }) async throws(PaginationError) -> [Page] {
        var pages: [Page] = []
        do {
            try await walk { page in
                inspect(page)
                pages.append(page)
                return .takeNext
            }
        } catch let error as PaginationError {
            throw error
        } catch {
            // The body above throws nothing.
            throw .cancelled
        }
        return pages
    }
}
