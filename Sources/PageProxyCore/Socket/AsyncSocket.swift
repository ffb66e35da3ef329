import Synchronization

/// A connected non-blocking socket with async reads and writes, each bounded by an optional deadline.
///
/// Reads and writes try the system call first and wait for readiness only when it would block (FlyingFox's
/// `loopUntilReady`). One task uses a socket at a time; `close()` may come from anywhere and wakes that task.
package final class AsyncSocket: Sendable {
    package let socket: Socket
    private let readiness: SocketReadiness
    private let isClosed = Mutex(false)
    /// The last `read` returned less than it asked for (the receive queue was empty) and nothing else has waited for
    /// reading since: the next `read` waits for the edge first, instead of a system call that would only say "would
    /// block" (issue 13: half a failed `read` a request on a keep-alive connection). New data always brings a new
    /// edge; the end of stream or an error may not (its edge may have come with the data just read), so once the
    /// loop has seen the peer hang up, reads try the system call first again. Any other wait for reading may take
    /// the edge of data still unread, so it clears this. Read and written by the one task reading the socket.
    private let lastReadDrained = Atomic(false)
    /// Every byte the kernel has taken from this socket's writes, counted as it takes them: an answer cut mid-write
    /// (a client that left or stalled) is logged with the bytes that left, not 0 (attack5 m1).
    private let written = Atomic(0)

    /// How many bytes the socket's writes have handed to the kernel so far, over the connection's life.
    package var bytesWritten: Int { written.load(ordering: .relaxed) }

    /// Counts `count` bytes the kernel took.
    func noteWritten(_ count: Int) {
        written.add(count, ordering: .relaxed)
    }

    package init(socket: Socket) {
        self.socket = socket
        let fd = socket.fd
        // Shut down and released once out of the loop: see `close()`.
        readiness = SocketReadiness(fd: fd) {
            Socket(fd: fd).shutdown()
            Socket(fd: fd).close()
        }
    }

    /// A socket dropped without `close()` (say, an idle one in a pool that is itself released) is closed here, so
    /// its descriptor is released.
    deinit {
        close()
    }

    /// Connects to `address`, failing with `.timedOut` at the deadline; `receiveBufferBytes` sets `SO_RCVBUF` first.
    package static func connect(
        to address: SocketAddress, deadline: ContinuousClock.Instant?, receiveBufferBytes: Int? = nil
    ) async throws(SocketError) -> AsyncSocket {
        let (socket, isConnected) = try Socket.makeConnecting(to: address, receiveBufferBytes: receiveBufferBytes)
        let connection = AsyncSocket(socket: socket)
        if isConnected { return connection }
        switch await connection.readiness.wait(for: .write, deadline: deadline) {
        case .ready, .woken:
            if let error = socket.connectResult() {
                connection.close()
                throw error
            }
            return connection
        case .timedOut:
            connection.close()
            throw .timedOut
        case .cancelled:
            connection.close()
            throw .cancelled
        }
    }

    /// How many bytes a read takes at most, unless told otherwise.
    package static let readBytes = 16384

    /// Appends what arrives next (up to `maxBytes`) to `buffer`; returns the count, 0 at end of stream.
    package nonisolated(nonsending) func read(into buffer: inout [UInt8], maxBytes: Int = readBytes, deadline: ContinuousClock.Instant?) async throws(SocketError) -> Int {
        // Data that came after the last read has left an edge (remembered if nobody waited): waiting first loses none.
        if lastReadDrained.exchange(false, ordering: .relaxed), !readiness.peerHungUp {
            if buffer.isEmpty { buffer = [] }
            try await waitUntil(.read, deadline: deadline)
        }
        while true {
            if let count = try readNow(into: &buffer, maxBytes: maxBytes).get() { return count }
            // Nothing to read: an empty buffer gives its capacity back while the connection waits (idle
            // keep-alive connections then cost a few KB, not the read size).
            if buffer.isEmpty { buffer = [] }
            try await waitUntil(.read, deadline: deadline)
        }
    }

    /// One read without waiting: appends what has arrived (up to `maxBytes`) to `buffer` and returns the count (0 at
    /// end of stream), nil when nothing has (the read would block). What `read` does between its waits; a
    /// `ReadInterceptor` reads so on the loop's thread.
    package func readNow(into buffer: inout [UInt8], maxBytes: Int = readBytes) -> Result<Int?, SocketError> {
        let result = buffer.append(readingUpTo: maxBytes) { scratch -> (result: Result<Int?, SocketError>, count: Int) in
            let result = whileOpen { () throws(SocketError) -> Int? in try socket.read(into: scratch) }
            return (result, ((try? result.get()) ?? nil) ?? 0)
        }
        if case .success(let count?) = result { lastReadDrained.store(count > 0 && count < maxBytes, ordering: .relaxed) }
        return result
    }

    /// Whether a readable edge came while nobody waited and no wait has taken it yet (for tests).
    package var readEdgeRemembered: Bool { readiness.readEdgeRemembered }

    /// Waits, as `read` would before its system call, until the socket is readable, with `interceptor` taking each
    /// readable edge on the loop's thread meanwhile (it reads with `readNow`, and keeps the task waiting or wakes it;
    /// issue 13). Returns true once the interceptor woke the task; false when the next `read` must try its system call
    /// first: at once, having waited for nothing (the last read did not empty the socket, or the peer hung up), or after
    /// an edge the interceptor did not take. The caller then reads.
    package nonisolated(nonsending) func waitUntilReadable(
        deadline: ContinuousClock.Instant?, interceptor: any ReadInterceptor
    ) async throws(SocketError) -> Bool {
        // From here on a `read` tries its system call first, unless the interceptor's own reads empty the socket.
        guard lastReadDrained.exchange(false, ordering: .relaxed), !readiness.peerHungUp else { return false }
        switch await readiness.wait(for: .read, deadline: deadline, interceptor: interceptor) {
        case .woken: return true
        // An edge the interceptor did not take (it came while the interceptor ran on this thread, or it is a hang-up):
        // what it announced may be unread, and no new edge will say so, so the next read tries its system call first
        // even if the interceptor's own read emptied the socket before it.
        case .ready:
            lastReadDrained.store(false, ordering: .relaxed)
            return false
        case .timedOut: throw .timedOut
        case .cancelled: throw .cancelled
        }
    }

    /// Writes every byte, waiting while the peer's window is full; throws `.timedOut` at the deadline.
    package nonisolated(nonsending) func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        try await write(bytes, deadline: .at(deadline))
    }

    /// Writes every byte, waiting while the peer's window is full; throws `.timedOut` at the deadline.
    package nonisolated(nonsending) func write(_ bytes: [UInt8], deadline: WriteDeadline) async throws(SocketError) {
        var deadline = deadline
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { raw -> Result<Int?, SocketError> in
                whileOpen { () throws(SocketError) -> Int? in
                    try socket.write(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
            }
            if let written = try result.get() {
                offset += written
                noteWritten(written)
                deadline.noteProgress()
            } else {
                try await waitUntil(.write, deadline: deadline.forWaiting())
            }
        }
    }

    /// Writes every byte of `parts` in order, as few system calls as the kernel allows (one when it takes them all),
    /// without joining them into one buffer; waits while the peer's window is full; throws `.timedOut` at the deadline.
    package nonisolated(nonsending) func write(_ parts: [[UInt8]], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        try await write(parts, deadline: .at(deadline))
    }

    /// Writes every byte of `parts` in order (as `write(_:deadline:)` with an instant); `deadline` may be renewed as the
    /// peer takes bytes.
    package nonisolated(nonsending) func write(_ parts: [[UInt8]], deadline: WriteDeadline) async throws(SocketError) {
        var deadline = deadline
        // Where the bytes not yet written start; no copy of `parts` (issue 13: allocations a memoized answer).
        var position = PartsPosition(parts)
        while true {
            let (written, error) = writeNow(parts, from: &position)
            if let error { throw error }
            if position.isAtEnd(of: parts) { return }
            if written > 0 { deadline.noteProgress() }
            try await waitUntil(.write, deadline: deadline.forWaiting())
        }
    }

    /// Where the bytes of `parts` not yet written start (`writeNow(_:from:)`).
    package struct PartsPosition: Sendable {
        var index: Int
        var offset = 0

        package init(_ parts: [[UInt8]]) {
            index = parts.startIndex
        }

        /// Whether every byte is written.
        package func isAtEnd(of parts: [[UInt8]]) -> Bool {
            var index = index
            var offset = offset
            Self.skipWritten(parts, &index, &offset)
            return index == parts.endIndex
        }

        /// The bytes not yet written, as parts: a copy of the rest of the part it stands in, the others shared.
        package func unwritten(of parts: [[UInt8]]) -> [[UInt8]] {
            guard index < parts.endIndex else { return [] }
            var rest = [Array(parts[index][offset...])]
            rest += parts[(index + 1)...]
            return rest
        }

        fileprivate static func skipWritten(_ parts: [[UInt8]], _ index: inout Int, _ offset: inout Int) {
            while index < parts.endIndex, offset == parts[index].count {
                index += 1
                offset = 0
            }
        }
    }

    /// Writes what the socket takes of `parts` from `position` on, without waiting: until all is written, the write
    /// would block, or it fails; moves `position` past what left. Returns the bytes written, and the error that ended
    /// it. What `write(_:deadline:)` does between its waits; a `ReadInterceptor`'s answer writes so on the loop's thread.
    package func writeNow(_ parts: [[UInt8]], from position: inout PartsPosition) -> (written: Int, error: SocketError?) {
        var total = 0
        while true {
            PartsPosition.skipWritten(parts, &position.index, &position.offset)
            guard position.index < parts.endIndex else { return (total, nil) }
            let result = Self.withBuffers(parts[position.index...], skipping: position.offset) { buffers in
                whileOpen { () throws(SocketError) -> Int? in try socket.write(gathering: buffers) }
            }
            let written: Int
            switch result {
            case .failure(let error): return (total, error)
            case .success(nil): return (total, nil)
            case .success(let count?): written = count
            }
            noteWritten(written)
            total += written
            var left = written
            while left > 0 {
                let rest = parts[position.index].count - position.offset
                if left < rest {
                    position.offset += left
                    break
                }
                left -= rest
                position.index += 1
                position.offset = 0
            }
        }
    }

    /// The most buffers one `sendmsg` takes (Linux's `IOV_MAX`); the parts past it go in the next call.
    static let maxGatheredParts = 1024

    /// The most bytes one gathering write offers the kernel (`gatheredRun`): more than a loopback socket's buffer
    /// takes in one call (~250–350 KB a call for a 10.6 MB merged answer), so no call sends less for it.
    static let maxGatheredBytes = 1 << 20

    /// How many of the parts whose lengths are `counts` (the first from `offset` on) one gathering write is built for:
    /// up to `maxGatheredParts`, and no further than the part that brings them to `maxGatheredBytes` (at least one).
    ///
    /// Issue 13, twenty-first pass: every call opened a scope (and retained the bytes) of each of the next 1,024 parts,
    /// the whole rest of a 501-page answer, of which the kernel took ~12; ~40 calls an answer made ~20,000 scopes,
    /// where ~1,000 parts are sent.
    static func gatheredRun(_ counts: some Sequence<Int>, skipping offset: Int) -> Int {
        var (parts, bytes, skip) = (0, 0, offset)
        for count in counts {
            guard parts < maxGatheredParts, bytes < maxGatheredBytes else { break }
            parts += 1
            bytes += count - skip
            skip = 0
        }
        return parts
    }

    /// Calls `body` with the bytes of the first parts of `parts` one write is built for (`gatheredRun`), the first
    /// part from `offset` on.
    ///
    /// Each part's bytes are valid only inside its own `withUnsafeBytes`, so the scopes nest, one level a part;
    /// the list is built in place, on the stack, as they open, in linear time.
    static func withBuffers<T>(
        _ parts: ArraySlice<[UInt8]>, skipping offset: Int, _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> T
    ) -> T {
        let parts = parts.prefix(gatheredRun(parts.lazy.map { $0.count }, skipping: offset))
        return withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: parts.count) { buffers in
            gather(parts, skipping: offset, into: buffers, filled: 0, body)
        }
    }

    private static func gather<T>(
        _ parts: ArraySlice<[UInt8]>, skipping offset: Int, into buffers: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>, filled: Int,
        _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> T
    ) -> T {
        guard let first = parts.first else { return body(UnsafeBufferPointer(rebasing: buffers[..<filled])) }
        return first.withUnsafeBytes { raw in
            buffers.initializeElement(at: filled, to: UnsafeRawBufferPointer(rebasing: raw[(filled == 0 ? offset : 0)...]))
            return gather(parts.dropFirst(), skipping: offset, into: buffers, filled: filled + 1, body)
        }
    }

    /// Waits until the peer sends something or closes, without reading it.
    package nonisolated(nonsending) func waitUntilReadable(deadline: ContinuousClock.Instant?) async throws(SocketError) {
        lastReadDrained.store(false, ordering: .relaxed)
        try await waitUntil(.read, deadline: deadline)
    }

    /// Waits until a write would not block.
    package nonisolated(nonsending) func waitUntilWritable(deadline: ContinuousClock.Instant?) async throws(SocketError) {
        try await waitUntil(.write, deadline: deadline)
    }

    /// Runs `call` (non-blocking system calls on the descriptor, such as OpenSSL's) only while the socket is open;
    /// `nil` once it is closed. See `whileOpen`.
    package func withOpenDescriptor<T: Sendable>(_ call: (Int32) -> T) -> T? {
        try? whileOpen { () throws(SocketError) -> T in call(socket.fd) }.get()
    }

    /// Returns true once the peer closes or resets the connection, false if it sends data instead (a pipelined
    /// request) or the wait is cancelled. Nothing is read.
    package func waitForPeerClose() async -> Bool {
        // Its wait may take the edge of a pipelined request: the next `read` must then try the system call first.
        lastReadDrained.store(false, ordering: .relaxed)
        while !Task.isCancelled {
            let peeked = whileOpen { () throws(SocketError) -> Bool? in socket.isPeerClosed() }
            guard case .success(let closed) = peeked else { return false }
            switch closed {
            case true?: return true
            case false?: return false
            case nil:
                guard await readiness.wait(for: .read, deadline: nil) == .ready else { return false }
            }
        }
        return false
    }

    /// Closes the socket once; a task waiting on it wakes with `.cancelled`.
    ///
    /// No system call reaches the descriptor from the moment `close()` begins (`whileOpen`). It is shut down (the peer
    /// sees the end at once, even while a forked child still holds a copy) and released only after it has left the
    /// loop: a shutdown while still registered raised a hang-up edge that the loop could hand to a waiting task as
    /// `.ready` before `readiness.close()` ended its wait, and a caller that then touched the descriptor by its number
    /// (a test's raw `accept`) reached whatever socket had taken that number since: another test's listener, whose
    /// connection it answered (flaky17).
    package func close() {
        let wasClosed = isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        readiness.close()
    }

    /// Runs a system call on the descriptor only while the socket is open, holding the lock that `close()` takes.
    ///
    /// The descriptor is released by `close()` (once it is out of the event loop), and the kernel hands
    /// its number to the next socket opened in the process: a read or write that slipped past a close would touch
    /// someone else's connection. Calls are non-blocking, so holding the lock across one is cheap.
    private func whileOpen<T: Sendable>(_ call: () throws(SocketError) -> T) -> Result<T, SocketError> {
        isClosed.withLock { closed in
            guard !closed else { return .failure(.cancelled) }
            return Result(catching: call)
        }
    }

    private nonisolated(nonsending) func waitUntil(
        _ direction: SocketReadiness.Direction, deadline: ContinuousClock.Instant?
    ) async throws(SocketError) {
        switch await readiness.wait(for: direction, deadline: deadline) {
        case .ready, .woken: return
        case .timedOut: throw .timedOut
        case .cancelled: throw .cancelled
        }
    }
}
