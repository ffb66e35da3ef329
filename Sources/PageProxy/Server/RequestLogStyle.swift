/// How a server logs each request it answers.
///
/// PageProxy's own requests are logged at `info`; the built-in mock upstream that runs beside it (`mock` in
/// `config.json`) logs its requests at `debug` as "mock request", so that a demo's upstream traffic (a line per
/// page) does not drown the proxy's one line per client request.
struct RequestLogStyle: Sendable {
    var level: LogLevel = .info
    var message = "request"

    static let standard = RequestLogStyle()
    static let mockBesideProxy = RequestLogStyle(level: .debug, message: "mock request")
}
