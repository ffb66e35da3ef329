import PageProxyCore

/// The limits one server enforces on its clients.
package struct ServerLimits: Sendable {
    package var maxConnections = 1024
    /// From the first byte of a request until its head is complete (slow-loris defence).
    package var headerTimeout: Duration = .seconds(10)
    /// How long a kept-alive connection may wait for its next request.
    package var idleTimeout: Duration = .seconds(60)
    /// How long a write may wait for a client that takes none of its bytes; renewed whenever the client takes some
    /// (`WriteDeadline.idle`, nginx's `send_timeout`).
    package var writeTimeout: Duration = .seconds(30)
    /// `SO_SNDBUF` of each accepted connection; nil leaves the kernel's auto-tuning (up to `tcp_wmem`'s maximum,
    /// 4 MiB by default). A fixed size bounds what waits in the kernel for a slow client, and so how far upstream
    /// fetching can run ahead of what the client has read: the route's window plus this buffer.
    package var sendBufferBytes: Int? = 256 * 1024
    package var http = HTTPLimits()

    /// The defaults above.
    package init() {}
}
