import Synchronization
import Testing

@testable import PageProxyCore

#if canImport(Glibc)
import Glibc
#endif

/// The pool's check-in and the judgement of bytes found on a connection with no request outstanding (attack17 L2).
@Suite struct ConnectionPoolUnsolicitedTests {
    private static func makePair() -> (AsyncSocket, AsyncSocket) {
        let (left, right) = makeNonBlockingSocketPair()
        return (AsyncSocket(socket: Socket(fd: left)), AsyncSocket(socket: Socket(fd: right)))
    }

    private static let key = ConnectionPool.Key(origin: PageURL(scheme: "http", host: "127.0.0.1", port: 9, path: "/", query: nil).origin)

    @Test("a connection given back with bytes waiting on it (written after its response) is closed, its origin told once and reused no more; a quiet one given back before is closed with it")
    func bytesAtCheckInStopReuse() async throws {
        let told = Locked<[ConnectionPool.UnsolicitedBytes]>([])
        let pool = ConnectionPool(onUnsolicited: { _, seen in told.withLock { $0.append(seen) } })
        let (quiet, quietPeer) = Self.makePair()
        let (written, writer) = Self.makePair()
        defer { [quietPeer, writer].forEach { $0.close() } }
        #expect(pool.giveBack(quiet, for: Self.key) == .quiet)
        #expect(pool.idleCount(for: Self.key) == 1)
        try await writer.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]".utf8), deadline: .now + .seconds(30))
        #expect(pool.giveBack(written, for: Self.key) == .unsolicited)
        #expect(pool.idleCount(for: Self.key) == 0)
        #expect(!pool.reuses(Self.key.origin))
        #expect(told.value == [.afterAResponse])
        // A quiet connection of that origin given back later is not kept either, and the origin is not told again.
        let (later, laterPeer) = Self.makePair()
        defer { laterPeer.close() }
        #expect(pool.giveBack(later, for: Self.key) == .quiet)
        #expect(pool.idleCount(for: Self.key) == 0)
        pool.noteUnsolicited(from: Self.key.origin, .whileIdle)
        #expect(told.value == [.afterAResponse])
    }

    @Test("a closed connection, or one holding a server's closing 408 or empty lines, is unusable but no fault: its origin is still reused")
    func closingNoticesAreNoFault() async throws {
        let pool = ConnectionPool()
        for bytes in ["HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n", "HTTP/1.0 408", "HTTP/1.1 4", "\r\n", ""] {
            let (connection, peer) = Self.makePair()
            if bytes.isEmpty { peer.close() } else { try await peer.write(Array(bytes.utf8), deadline: .now + .seconds(30)) }
            #expect(await yieldUntil(within: .seconds(20)) { connection.idleState() != .quiet }, "\(bytes.debugDescription)")
            #expect(pool.giveBack(connection, for: Self.key) == .unusable, "\(bytes.debugDescription)")
            peer.close()
        }
        #expect(pool.reuses(Self.key.origin))
    }

    @Test("the first bytes of a stray response (after empty lines too), or a 408 spelled wrong, are unsolicited", arguments: [
        "HTTP/1.1 200 OK\r\n", "HTTP/1.2 408", "\r\nHTTP/1.1 200", "\r\n\r\nHTTP/1.0 200 OK",
    ])
    func strayBytesAreUnsolicited(bytes: String) {
        #expect(UpstreamIdleState(leftover: Array(bytes.utf8)) == .unsolicited)
    }

    @Test("review26 M4: a body a 304 or 204 carried, or padding past a Content-Length, cannot be read as an answer: unframed, not unsolicited", arguments: [
        "[{\"id\":\"evil\"}]", "{\"detail\":\"not modified\"}", " ", "\t\t", "\0\0\0", "<html>", "TTP/1.1 200 OK",
    ])
    func bytesNoAnswerIsMadeOfAreNoFault(bytes: String) {
        #expect(UpstreamIdleState(leftover: Array(bytes.utf8)) == .unframed)
    }

    @Test("review26 M4: a closing 408 after empty lines is the closing notice it is: unusable, not unsolicited", arguments: [
        "\r\nHTTP/1.1 408", "\r\n\r\n\r\nHTTP/1.0 408 Request Timeout\r\n",
    ])
    func aClosing408AfterEmptyLinesIsNoFault(bytes: String) {
        #expect(UpstreamIdleState(leftover: Array(bytes.utf8)) == .unusable)
    }

    @Test("review26 M4: a connection given back with a stray body on it is closed, and its origin is still reused (none counted as not reused)")
    func aStrayBodyCostsOneConnection() async throws {
        let told = Locked<[ConnectionPool.UnsolicitedBytes]>([])
        let pool = ConnectionPool(onUnsolicited: { _, seen in told.withLock { $0.append(seen) } })
        let (connection, peer) = Self.makePair()
        defer { peer.close() }
        try await peer.write(Array(#"{"detail":"not modified"}"#.utf8), deadline: .now + .seconds(30))
        #expect(await yieldUntil(within: .seconds(20)) { connection.idleState() != .quiet })
        #expect(pool.giveBack(connection, for: Self.key) == .unframed)
        #expect(pool.idleCount(for: Self.key) == 0)
        #expect(pool.reuses(Self.key.origin))
        #expect(pool.originsNotReused == 0)
        #expect(told.value.isEmpty)
        pool.noteUnsolicited(from: Self.key.origin, .whileIdle)
        #expect(pool.originsNotReused == 1)
    }
}
