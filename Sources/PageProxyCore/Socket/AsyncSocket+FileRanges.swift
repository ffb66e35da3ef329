#if canImport(Glibc)
import Glibc
#endif

extension AsyncSocket {
    /// Writes `parts` in order: runs of bytes in gathering writes (`sendmsg`, from where they are, as `write(slices:)`),
    /// file ranges with `sendfile` from the open file, never copied into user space (issue 13, eighth pass). When there
    /// are file ranges the socket is corked (`TCP_CORK`) for the while, so that the one-byte punctuation between file ranges leaves in full segments with
    /// the bytes around it, not as segments of its own; uncorked at the end, whatever happened. Waits while the
    /// peer's window is full; throws `.timedOut` at the deadline.
    /// - Throws: `.failed(call: "sendfile", errno: 0)` when a file has fewer bytes than its range (cut short in place by
    ///   another process): what was sent stays sent, and the caller closes the connection short of its length.
    package func write(bodyParts parts: [ResponseBodyPart], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        try await write(bodyParts: parts, deadline: .at(deadline))
    }

    /// Writes `parts` in order (as `write(bodyParts:deadline:)` with an instant); `deadline` may be renewed as the peer
    /// takes bytes.
    package func write(bodyParts parts: [ResponseBodyPart], deadline: WriteDeadline) async throws(SocketError) {
        var deadline = deadline
        // An answer of bytes only (pages in memory) is written as `write(slices:)` writes it: no cork, no copy of the list.
        let sendsFiles = parts.contains { if case .file = $0 { true } else { false } }
        if sendsFiles { Self.ignoreBrokenPipeSignal() }
        if sendsFiles { _ = withOpenDescriptor { Self.setCork($0, true) } }
        defer { if sendsFiles { _ = withOpenDescriptor { Self.setCork($0, false) } } }
        var index = parts.startIndex
        var offset = 0  // into `parts[index]`, when it is bytes
        while index < parts.endIndex {
            if case .file(let file, let range) = parts[index] {
                try await send(file, range, deadline: &deadline)
                index += 1
                continue
            }
            // The run of bytes up to the next file range, at most one `sendmsg`'s worth.
            let end = parts[index...].prefix(Self.maxGatheredParts).firstIndex { if case .file = $0 { true } else { false } }
            let run = parts[index..<(end ?? min(parts.endIndex, index + Self.maxGatheredParts))]
            let result = withOpenDescriptor { fd in
                Self.withVectors(of: run, skipping: offset, bytes: Self.inMemory) { vectors in
                    Result { () throws(SocketError) -> Int? in vectors.isEmpty ? 0 : try Self.send(vectors, on: fd) }
                }
            }
            guard let result else { throw .cancelled }
            guard let written = try result.get() else {
                try await waitUntilWritable(deadline: deadline.forWaiting())
                continue
            }
            noteWritten(written)
            deadline.noteProgress()
            // What the kernel took leaves the front: whole parts, then an offset into the one it took part of.
            let taken = Self.advance(over: run.lazy.map(\.count), written: written, offset: offset)
            index += taken.whole
            offset = taken.offset
        }
    }

    /// A part's bytes when they are in memory.
    private static func inMemory(_ part: ResponseBodyPart) -> ArraySlice<UInt8>? {
        if case .bytes(let bytes) = part { bytes } else { nil }
    }

    /// Sends `range` of `file`'s body with `sendfile`, waiting while the peer's window is full.
    private func send(_ file: HeldEntryFile, _ range: Range<Int>, deadline: inout WriteDeadline) async throws(SocketError) {
        var offset = off_t(file.bodyOffset + range.lowerBound)
        var left = range.count
        while left > 0 {
            let sent = withOpenDescriptor { fd -> Result<Int?, SocketError> in
                while true {
                    let count = sendfile(fd, file.descriptor, &offset, left)
                    if count > 0 { return .success(count) }
                    // The file ended before the range: cut short in place (entries are only replaced by rename).
                    if count == 0 { return .failure(.failed(call: "sendfile", errno: 0)) }
                    switch errno {
                    case EINTR: continue
                    case EAGAIN, EWOULDBLOCK: return .success(nil)
                    default: return .failure(.makeFailed("sendfile"))
                    }
                }
            }
            guard let sent else { throw .cancelled }
            guard let count = try sent.get() else {
                try await waitUntilWritable(deadline: deadline.forWaiting())
                continue
            }
            left -= count
            noteWritten(count)
            deadline.noteProgress()
        }
    }

    /// `sendfile` has no `MSG_NOSIGNAL`: to a client that has gone it raises `SIGPIPE`, whose default action ends
    /// the process (the suite died of it once the merged read-back used `sendfile`). The executable ignores it in
    /// `main`; a process that embeds the server gets it ignored here, once, before its first `sendfile`: a write to a
    /// closed socket is then `EPIPE`, an error the writer handles.
    private static func ignoreBrokenPipeSignal() { _ = brokenPipeSignalIgnored }
    private static let brokenPipeSignalIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private static func setCork(_ fd: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}
