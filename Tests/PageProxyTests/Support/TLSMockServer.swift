import Foundation
import PageProxyCore
import Synchronization

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// The mock upstream served over TLS on a loopback port, with the test certificate in Fixtures/tls: PageProxy's
/// own OpenSSL layer on the server side, so `https://` routes are tested with no tool outside the toolchain's
/// system libraries. Keep-alive; one request at a time per connection; every request reaches `mock`.
final class TLSMockServer: Sendable {
    let port: Int
    private let listener: Listener
    private let counter = AcceptCounter()

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls")
    /// The self-signed certificate of `127.0.0.1` the server presents: the CA file that trusts it.
    static let certificate = fixtures.appendingPathComponent("upstream-cert.pem").path

    /// TLS connections accepted so far.
    var acceptedConnections: Int { counter.value.withLock { $0 } }

    init(mock: MockUpstream) throws {
        let context = try TLSContext.server(
            certificateChain: Self.certificate, privateKey: Self.fixtures.appendingPathComponent("upstream-key.pem").path
        ).get()
        let counter = self.counter
        let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
        self.listener = listener
        port = listener.port
        Task {
            await withDiscardingTaskGroup { group in
                for await client in listener.accepted {
                    counter.value.withLock { $0 += 1 }
                    group.addTask { await Self.serve(AsyncSocket(socket: client), context: context, mock: mock) }
                }
            }
        }
    }

    func stop() {
        listener.close()
    }

    private static func serve(_ socket: AsyncSocket, context: TLSContext, mock: MockUpstream) async {
        let deadline = ContinuousClock.now + .seconds(60)
        guard let stream = try? await TLSStream.accept(socket, context: context, deadline: deadline) else {
            socket.close()
            return
        }
        defer { stream.close() }
        var buffer: [UInt8] = []
        var parser = HTTPRequestParser()
        while true {
            guard case .request(let head)? = try? parser.parse(&buffer) else {
                guard (try? await stream.read(into: &buffer, maxBytes: 65536, deadline: deadline)) ?? 0 > 0 else { return }
                continue
            }
            // The mock's absolute links must say https, as a real service behind TLS writes them.
            let fields = head.headers.map { (name: $0.name, value: $0.value) } + [(name: "X-Forwarded-Proto", value: "https")]
            let response = await mock.respond(to: MockRequest(method: head.method.rawValue, target: head.target, headers: fields))
            guard (try? await stream.write(response.wireBytes, deadline: deadline)) != nil else { return }
        }
    }
}

private final class AcceptCounter: Sendable {
    let value = Mutex(0)
}
