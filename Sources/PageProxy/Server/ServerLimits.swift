import PageProxyCore

/// The limits one server enforces on its clients.
struct ServerLimits: Sendable {
    var maxConnections = 1024
    /// From the first byte of a request until its head is complete (slow-loris defence).
    var headerTimeout: Duration = .seconds(10)
    /// How long a kept-alive connection may wait for its next request.
    var idleTimeout: Duration = .seconds(60)
    /// How long one write may wait for a client that does not read.
    var writeTimeout: Duration = .seconds(30)
    var http = HTTPLimits()
}
