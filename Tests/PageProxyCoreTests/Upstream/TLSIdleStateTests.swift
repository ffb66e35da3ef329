import Foundation
import Synchronization
import Testing

@testable import PageProxyCore

/// review26 M5: what waits on an idle `https://` connection is judged decrypted, as on a plain one (`SSL_peek`).
@Suite struct TLSIdleStateTests {
    /// The test certificate of `127.0.0.1` PageProxyTests' TLS mock presents, and its key.
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("PageProxyTests/Fixtures/tls")
    private static let key = ConnectionPool.Key(
        origin: PageURL(scheme: "https", host: "127.0.0.1", port: 9, path: "/", query: nil).origin,
        caFile: fixtures.appendingPathComponent("upstream-cert.pem").path)

    /// A TLS connection over a socket pair, handshake done, and one exchange of application data read on the client
    /// (so that what the server wrote with its handshake, its session tickets, has been taken in).
    private static func makePair() async throws -> (client: TLSStream, server: TLSStream) {
        let (left, right) = makeNonBlockingSocketPair()
        let deadline = ContinuousClock.now + .seconds(30)
        let serverContext = try TLSContext.server(
            certificateChain: key.caFile ?? "", privateKey: fixtures.appendingPathComponent("upstream-key.pem").path).get()
        let clientContext = try TLSContext.client(caFile: key.caFile).get()
        async let accepted = TLSStream.accept(AsyncSocket(socket: Socket(fd: right)), context: serverContext, deadline: deadline)
        let client = try await TLSStream.connect(AsyncSocket(socket: Socket(fd: left)), context: clientContext, host: "127.0.0.1", deadline: deadline)
        let server = try await accepted
        try await server.write(Array("hello".utf8), deadline: deadline)
        var greeting: [UInt8] = []
        while greeting.count < 5 {
            guard try await client.read(into: &greeting, maxBytes: 5 - greeting.count, deadline: deadline) > 0 else { break }
        }
        #expect(greeting == Array("hello".utf8))
        return (client, server)
    }

    @Test("a response written on an idle https connection is unsolicited (undecrypted it was merely unusable, and its origin never blamed), and is still there to read")
    func aStrayResponseIsSeenDecrypted() async throws {
        let (client, server) = try await Self.makePair()
        defer { [client, server].forEach { $0.close() } }
        #expect(client.idleState() == .quiet)
        let stray = Array("HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n[{\"id\":\"evil\"}]".utf8)
        try await server.write(stray, deadline: .now + .seconds(30))
        #expect(await yieldUntil(within: .seconds(20)) { client.idleState() != .quiet })
        #expect(client.idleState() == .unsolicited)
        // Looking took nothing: the bytes are read whole after it.
        var read: [UInt8] = []
        while read.count < stray.count {
            guard try await client.read(into: &read, maxBytes: 65536, deadline: .now + .seconds(30)) > 0 else { break }
        }
        #expect(read == stray)
        #expect(client.idleState() == .quiet)
    }

    @Test("the pool blames an https origin whose idle connection holds a stray response: closed, told once, not reused")
    func thePoolBlamesAStrayOverTLS() async throws {
        let told = Locked<[ConnectionPool.UnsolicitedBytes]>([])
        let pool = ConnectionPool(onUnsolicited: { _, seen in told.withLock { $0.append(seen) } })
        let (client, server) = try await Self.makePair()
        defer { server.close() }
        try await server.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]".utf8), deadline: .now + .seconds(30))
        #expect(await yieldUntil(within: .seconds(20)) { client.idleState() != .quiet })
        #expect(pool.giveBack(client, for: Self.key) == .unsolicited)
        #expect(!pool.reuses(Self.key.origin))
        #expect(pool.originsNotReused == 1)
        #expect(told.value == [.afterAResponse])
    }

    @Test("on an idle https connection a closing 408 after an empty line, or a stray body, is unusable but no fault; so is the server's close_notify",
          arguments: [("\r\nHTTP/1.1 408 Request Timeout\r\n\r\n", UpstreamIdleState.unusable), ("{\"detail\":\"not modified\"}", .unframed), ("", .unusable)])
    func noAnswerOverTLSIsNoFault(bytes: String, judged: UpstreamIdleState) async throws {
        let pool = ConnectionPool()
        let (client, server) = try await Self.makePair()
        defer { server.close() }
        if bytes.isEmpty { server.close() } else { try await server.write(Array(bytes.utf8), deadline: .now + .seconds(30)) }
        #expect(await yieldUntil(within: .seconds(20)) { client.idleState() != .quiet })
        #expect(pool.giveBack(client, for: Self.key) == judged)
        #expect(pool.reuses(Self.key.origin))
    }
}
