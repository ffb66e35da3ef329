import PageProxyCore

/// What a responder says about its answer, for the request's log line and the metrics: typed fields the responder
/// returns, beside what the writer knows (status, bytes, whether the answer was aborted).
package struct RequestRecord: Sendable, Equatable {
    /// The route the request named; nil for PageProxy's own endpoints and unknown paths.
    package var route: String?
    package var pages: Int?
    package var items: Int?
    /// The `PageProxy-Cache` summary of the pages' cache outcomes.
    package var cache: String?
    package var retries: Int?
    /// An auto route's detected scheme (`auto->link-header`), or `auto` when detection failed.
    package var scheme: String?
    package var itemsPath: String?
    /// Whether a merged answer waited on disk.
    package var isSpooled = false
    /// The code of the error the answer reports (`ErrorResponse`), or why it was cut (`shutdown_cut`).
    package var error: String?
    package var errorMessage: String?
    /// Whether the answer is an account of the walk (`_explain`), not its items.
    package var isExplained = false
    /// Whether the built-in mock answered (its lines are told apart from the proxy's).
    package var isMock = false

    package init(route: String? = nil) {
        self.route = route
    }

    /// The fields of the request's log line, in the order of their names.
    package var logFields: [(String, LogValue)] {
        var fields: [(String, LogValue)] = []
        if let cache { fields.append(("cache", .string(cache))) }
        if let error { fields.append(("error", .string(error))) }
        if let errorMessage { fields.append(("error_message", .string(errorMessage))) }
        if isExplained { fields.append(("explain", .bool(true))) }
        if let items { fields.append(("items", .int(items))) }
        if let itemsPath { fields.append(("items_path", .string(itemsPath))) }
        if isMock { fields.append(("mock", .bool(true))) }
        if let pages { fields.append(("pages", .int(pages))) }
        if let retries { fields.append(("retries", .int(retries))) }
        if let route { fields.append(("route", .string(route))) }
        if let scheme { fields.append(("scheme", .string(scheme))) }
        if isSpooled { fields.append(("spooled", .bool(true))) }
        return fields
    }
}
