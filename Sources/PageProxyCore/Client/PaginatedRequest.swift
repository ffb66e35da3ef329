import Foundation

/// A paginated endpoint as a type: where it is, how it pages, and what its items decode to.
///
/// In the spirit of APIKit's `PaginationRequestType`: the request names its base URL, path, query, headers and
/// pagination scheme, and its `Item` type fixes what `PageProxyClient.items(of:)` yields.
/// Only ``baseURL``, ``scheme`` and `Item` are required; everything else has a default.
///
/// ```swift
/// struct SearchRepositories: PaginatedRequest {
///     struct Item: Decodable { let full_name: String }
///     let query: String
///     var baseURL: PageURL { PageURL(string: "https://api.github.com")! }
///     var path: String { "/search/repositories" }
///     var queryItems: [(name: String, value: String)] { [("q", query)] }
///     var scheme: PaginationScheme { .linkHeader(.init()) }
///     var itemsPath: JSONPath { JSONPath("items")! }
/// }
/// for try await repository in client.items(of: SearchRepositories(query: "swift")) { print(repository.full_name) }
/// ```
public protocol PaginatedRequest: Sendable {
    /// What one item of the upstream's pages decodes to.
    associatedtype Item: Decodable

    /// The upstream's base URL; ``path`` is appended to its path, ``queryItems`` to its query.
    var baseURL: PageURL { get }
    /// The endpoint's path below ``baseURL``, not percent-encoded (characters outside an RFC 3986 path are
    /// encoded); empty by default.
    var path: String { get }
    /// Query parameters of the first page, not percent-encoded, in order; none by default.
    var queryItems: [(name: String, value: String)] { get }
    /// Header fields sent with every page request (`Authorization`, `Accept`, …); none by default.
    var headers: [(name: String, value: String)] { get }
    /// How the upstream tells where the next page is.
    var scheme: PaginationScheme { get }
    /// Where the items are in each page; the root array by default.
    var itemsPath: JSONPath { get }
    /// How the walk may fetch: concurrency, page limit, timeouts; ``WalkLimits/init(concurrency:maxPages:pageTimeout:maxPageBytes:)``'s
    /// defaults by default.
    var limits: WalkLimits { get }
    /// The decoder for the items; a plain `JSONDecoder()` by default.
    func makeDecoder() -> JSONDecoder
}

extension PaginatedRequest {
    /// No path below ``baseURL``.
    public var path: String { "" }
    /// No query parameters.
    public var queryItems: [(name: String, value: String)] { [] }
    /// No header fields.
    public var headers: [(name: String, value: String)] { [] }
    /// The root array.
    public var itemsPath: JSONPath { .root }
    /// The default limits.
    public var limits: WalkLimits { WalkLimits() }
    /// A plain `JSONDecoder()`.
    public func makeDecoder() -> JSONDecoder { JSONDecoder() }

    /// The first page's URL: ``baseURL`` with ``path`` and ``queryItems`` appended.
    public var firstPageURL: PageURL {
        let base = baseURL
        var fullPath = base.path
        if !path.isEmpty {
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            let trimmed = encoded.hasPrefix("/") ? String(encoded.dropFirst()) : encoded
            fullPath = (fullPath.hasSuffix("/") ? fullPath : fullPath + "/") + trimmed
        }
        let pairs = (base.query.map { [$0] } ?? [])
            + queryItems.map { PageURL.encodeQueryComponent($0.name) + "=" + PageURL.encodeQueryComponent($0.value) }
        let query = pairs.filter { !$0.isEmpty }.joined(separator: "&")
        return PageURL(scheme: base.scheme, host: base.host, port: base.port, path: fullPath, query: query.isEmpty ? nil : query)
    }

    /// The request as the untyped ``PaginatedSource`` the client walks.
    public var source: PaginatedSource {
        PaginatedSource(url: firstPageURL, scheme: scheme, itemsPath: itemsPath, headers: headers, limits: limits)
    }
}
