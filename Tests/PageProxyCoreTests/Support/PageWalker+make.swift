@testable import PageProxyCore

extension PageWalker {
    /// A walker over `transport`, from `http://api.test/items`, each failed fetch reported as `.upstreamFailed`.
    static func make(
        _ scheme: PaginationScheme, transport: FakeTransport, configure: (inout Options) -> Void = { _ in }
    ) -> PageWalker {
        var options = Options()
        configure(&options)
        let base = PageURL(string: "http://api.test/items")!
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
        let walker = make(scheme, transport: transport, configure: configure)
        var items: [[UInt8]] = []
        do {
            try await walker.walk { page in
                items += page.itemBytes
                return .takeNext
            }
        } catch let error as PaginationError {
            throw error
        } catch {
            // The body above throws nothing.
            throw .cancelled
        }
        return items
    }
}
