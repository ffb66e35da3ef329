import PageProxyCore
import Synchronization

@testable import PageProxyServer
@testable import PageProxyMock

/// The mock upstream on a plain loopback port, with a broken server's habit (attack17 L2), `Habit`.
/// One request at a time per connection; `Connection: close` in a request closes its connection after the answer.
final class StrayResponseUpstream: Sendable {
    /// When the stray responses are written on a kept-alive connection.
    enum Habit: Sendable {
        /// Each request after the first is answered by a stray `200` holding `forgedItem` and then by its own answer, in
        /// one write. On the wire that is a second response written after each answer, arriving once the next request
        /// went out: the answer is seen waiting after the stray at that exchange's check-in.
        case strayBeforeEachLaterAnswer
        /// The second request is answered by a stray `200` (a full page of `forgedItem`) alone, its own answer held back;
        /// the third by the held answer and its own, in one write (stray19): the stray is read as the second page, and
        /// the connection is caught only at the third exchange's check-in, a page later. Every check before finds it quiet.
        case strayCaughtAPageLater
    }

    let port: Int
    private let listener: Listener
    private let strayCount = StrayCount()
    /// The stray responses written so far.
    var strays: Int { strayCount.value.withLock { $0 } }

    static let forgedItem = #"{"id":"FORGED"}"#

    init(mock: MockUpstream, habit: Habit = .strayBeforeEachLaterAnswer, pageSize: Int = 10) throws {
        let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
        self.listener = listener
        port = listener.port
        let strays = strayCount
        Task {
            await withDiscardingTaskGroup { group in
                for await client in listener.accepted {
                    group.addTask {
                        await Self.serve(AsyncSocket(socket: client), mock: mock, habit: habit, pageSize: pageSize, strays: strays)
                    }
                }
            }
        }
    }

    func stop() {
        listener.close()
    }

    private static func serve(_ socket: AsyncSocket, mock: MockUpstream, habit: Habit, pageSize: Int, strays: StrayCount) async {
        defer { socket.close() }
        let deadline = ContinuousClock.now + .seconds(60)
        var buffer: [UInt8] = []
        var parser = HTTPRequestParser()
        var answered = 0
        var held: [UInt8] = []
        while true {
            guard case .request(let head)? = try? parser.parse(&buffer) else {
                guard (try? await socket.read(into: &buffer, maxBytes: 65536, deadline: deadline)) ?? 0 > 0 else { return }
                continue
            }
            let fields = head.headers.map { (name: $0.name, value: $0.value) }
            let response = await mock.respond(to: MockRequest(method: head.method.rawValue, target: head.target, headers: fields))
            var bytes: [UInt8] = []
            switch habit {
            case .strayBeforeEachLaterAnswer:
                if answered > 0 {
                    bytes = MockResponse.json(status: 200, body: Array("[\(forgedItem)]".utf8)).wireBytes
                    strays.value.withLock { $0 += 1 }
                }
                bytes += response.wireBytes
            case .strayCaughtAPageLater:
                if answered == 1 {
                    let page = Array(repeating: forgedItem, count: pageSize).joined(separator: ",")
                    bytes = MockResponse.json(status: 200, body: Array("[\(page)]".utf8)).wireBytes
                    held = response.wireBytes
                    strays.value.withLock { $0 += 1 }
                } else {
                    bytes = held + response.wireBytes
                    held = []
                }
            }
            guard (try? await socket.write(bytes, deadline: deadline)) != nil else { return }
            answered += 1
            if head.headers["Connection"]?.lowercased() == "close" { return }
        }
    }
}

private final class StrayCount: Sendable {
    let value = Mutex(0)
}
