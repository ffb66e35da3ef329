import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// DESIGN.md "Outputs": memory stays bounded whatever the total, so a client that reads slowly pauses upstream
/// fetching instead of growing a buffer. Proven from the mock's record of requests, never from timing.
@Suite struct BackpressureTests {
    static let pageSize = 100
    static let concurrency = 4
    static let sendBufferBytes = 16 * 1024
    static let clientReceiveBufferBytes = 4 * 1024

    /// GitHub-style pages whose `last` link tells the proxy every page at once, so nothing but backpressure
    /// keeps it from fetching all of them.
    static var routes: [TestStack.Route] {
        var scheme = PaginationScheme.LinkHeader()
        scheme.pageSize = pageSize
        return [TestStack.Route(name: "wide", mockPath: "/github/items", scheme: .linkHeader(scheme), concurrency: concurrency)]
    }

    /// How many pages the proxy may have asked for while the client has read `consumed` raw bytes.
    ///
    /// The page the proxy is writing has not gone out whole, so every page before it fits in what the client read
    /// plus what the sockets hold: the server's send buffer (Linux doubles `SO_SNDBUF`; one 64 KiB segment may
    /// pass it) and the client's receive buffer. Add the page being written and the walker's window of
    /// `concurrency` pages ahead of it.
    static func bound(consumed: Int, clientReceiveBuffer: Int, total: Int) -> Int {
        let socketBytes = 2 * sendBufferBytes + 64 * 1024 + clientReceiveBuffer
        var written = 0
        var pages = 0
        for start in stride(from: 0, to: total, by: pageSize) {
            let pageBytes = (start..<min(total, start + pageSize)).reduce(0) { $0 + MockDataset.item($1).count + 1 }
            guard written + pageBytes <= consumed + socketBytes else { break }
            written += pageBytes
            pages += 1
        }
        return pages + 1 + concurrency
    }

    @Test("a slow reader pauses upstream fetching within the window plus the socket buffers, then gets every item")
    func slowReaderPausesFetching() async throws {
        let total = 4000  // 40 pages, about 850 KB of NDJSON
        // The paused client must not be cut before it reads on, however long a loaded machine takes to see the fetching
        // stop: the write timeout (30 s by default) is not this test's subject (flake23).
        try await TestStack.run(routes: Self.routes, configure: {
            $0.server.sendBufferBytes = Self.sendBufferBytes
            $0.server.writeTimeout = .seconds(3600)
        }) { stack in
            let client = try await stack.client(receiveBufferBytes: Self.clientReceiveBufferBytes)
            let receiveBuffer = try #require(client.socket.socket.bufferSize(receive: true))
            try await client.send(RawHTTPClient.requestText("/wide?mock_total=\(total)&_format=ndjson"))
            // A few bytes at a time, then not at all.
            for _ in 0..<50 {
                guard try await client.readSome(maxBytes: 64) > 0 else { break }
            }
            try await pollUntilSteady("the upstream requests stop growing", samples: 30) { stack.mock.log.count }
            let consumed = client.received.count
            let bound = Self.bound(consumed: consumed, clientReceiveBuffer: receiveBuffer, total: total)
            let requested = stack.mock.log.count
            #expect(requested <= bound, "read \(consumed) bytes; \(requested) pages requested, bound \(bound)")
            #expect(bound < total / Self.pageSize, "the bound must leave pages unfetched for the test to mean anything")
            // Reading on releases the rest, and the stream is whole: the last chunk, then its trailer section.
            let sectionEnd = Array("\r\n\r\n".utf8)
            while try !(client.received.ends(with: sectionEnd) && ChunkedBody.decode(client.received.bodyAfterHead).isComplete) {
                guard try await client.readSome(maxBytes: 65536) > 0 else { break }
            }
            let body = try ChunkedBody.decode(client.received.bodyAfterHead)
            #expect(body.isComplete)
            #expect(body.data == MockDataset.ndjson(total: total))
            #expect(stack.mock.log.count == total / Self.pageSize)
        }
    }

    @Test("a socket's SO_SNDBUF is what the kernel then reports, doubled")
    func sendBufferSizeIsFixed() throws {
        let listening = try Socket.makeListening(on: SocketAddress(host: "127.0.0.1", port: 0))
        defer { listening.close() }
        listening.setSendBufferSize(Self.sendBufferBytes)
        // Linux doubles the value for its bookkeeping and reports the doubled size.
        #expect(listening.bufferSize() == 2 * Self.sendBufferBytes)
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
