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
}
