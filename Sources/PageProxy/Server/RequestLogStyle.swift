/// How a server logs each request it answers.
///
/// PageProxy's own requests are logged at `info`; the built-in mock upstream that runs beside it (`mock` in
/// `config.json`) logs its requests at `debug` as "mock request", so that a demo's upstream traffic (a line per
/// page) does not drown the proxy's one line per client request.
struct RequestLogStyle: Sendable {
    /// The level of each request line.
    var level: LogLevel = .info
    /// The line's `msg`.
    var message = "request"

    /// PageProxy's own server, and the mock run alone (`PageProxy mock`), whose lines are all it writes.
    static let standard = RequestLogStyle()
    /// The built-in mock started beside the proxy.
    static let mockBesideProxy = RequestLogStyle(level: .debug, message: "mock request")
}
