#if canImport(Glibc)
import Glibc
#endif

extension AsyncSocket {
    /// Writes every byte of `slices` in order, in as few system calls as the kernel allows (one when it takes them
    /// all), waiting while the peer's window is full; throws `.timedOut` at the deadline.
    ///
    /// For bytes the caller holds in arrays of its own (a merged answer of one cached page: the head, `[`, the
    /// entry's items, `]`): they are sent from where they are, never joined or copied (issue 13). The slices keep
    /// their arrays alive. Nothing is allocated: the kernel's `iovec`s are built on the stack, and what the kernel
    /// took is an offset, not a copy of the list (issue 13: this write was 3–4 arrays a request).
    package nonisolated(nonsending) func write(slices: [ArraySlice<UInt8>], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        try await write(slices: slices, deadline: .at(deadline))
    }

    /// Writes every byte of `slices` in order (as `write(slices:deadline:)` with an instant); `deadline` may be
    /// renewed as the peer takes bytes.
    package nonisolated(nonsending) func write(slices: [ArraySlice<UInt8>], deadline: WriteDeadline) async throws(SocketError) {
        var deadline = deadline
        var remaining = slices[...]
        var offset = 0  // into the first remaining slice
        while true {
            // Slices written whole, and empty ones, leave the front.
            while let first = remaining.first, offset >= first.count {
                remaining = remaining.dropFirst()
                offset = 0
            }
            guard !remaining.isEmpty else { return }
            let batch = remaining.prefix(Self.gatheredRun(remaining.lazy.map { $0.count }, skipping: offset))
            let result = withOpenDescriptor { fd in
                Self.withVectors(of: batch, skipping: offset) { vectors in
                    Result { () throws(SocketError) -> Int? in try Self.send(vectors, on: fd) }
                }
            }
            guard let result else { throw .cancelled }
            guard let written = try result.get() else {
                try await waitUntilWritable(deadline: deadline.forWaiting())
                continue
            }
            noteWritten(written)
            deadline.noteProgress()
            // What the kernel took leaves the front: whole slices, then an offset into the one it took part of.
            let taken = Self.advance(over: remaining.lazy.map { $0.count }, written: written, offset: offset)
            remaining = remaining.dropFirst(taken.whole)
            offset = taken.offset
        }
    }

    /// Calls `body` with an `iovec` for the bytes of every non-empty slice, in order, the first from `offset` on; the
    /// vectors live on the stack, valid only inside `body`.
    private static func withVectors<T>(
        of slices: ArraySlice<ArraySlice<UInt8>>, skipping offset: Int, _ body: (UnsafeMutableBufferPointer<iovec>) -> T
    ) -> T {
        withVectors(of: slices, skipping: offset, bytes: { $0 }, body)
    }

    /// Calls `body` with an `iovec` for the bytes of every non-empty part, in order, the first from `offset` on, up to
    /// the first part that `bytes` says has none in memory (a file's range); the vectors live on the stack, valid only
    /// inside `body`.
    static func withVectors<Part, T>(
        of parts: ArraySlice<Part>, skipping offset: Int, bytes: (Part) -> ArraySlice<UInt8>?, _ body: (UnsafeMutableBufferPointer<iovec>) -> T
    ) -> T {
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: parts.count) { vectors in
            nest(parts, skipping: offset, bytes: bytes, into: vectors, filled: 0, body)
        }
    }

    /// Each part's bytes are valid only inside their own `withUnsafeBytes`, so the scopes nest, one level a part.
    private static func nest<Part, T>(
        _ parts: ArraySlice<Part>, skipping offset: Int, bytes: (Part) -> ArraySlice<UInt8>?, into vectors: UnsafeMutableBufferPointer<iovec>,
        filled: Int, _ body: (UnsafeMutableBufferPointer<iovec>) -> T
    ) -> T {
        guard let first = parts.first, let slice = bytes(first) else { return body(UnsafeMutableBufferPointer(rebasing: vectors[..<filled])) }
        return slice.withUnsafeBytes { raw in
            var filled = filled
            if let base = raw.baseAddress, raw.count > offset {
                vectors[filled] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base + offset), iov_len: raw.count - offset)
                filled += 1
            }
            return nest(parts.dropFirst(), skipping: 0, bytes: bytes, into: vectors, filled: filled, body)
        }
    }

    /// After a write of `written` bytes from `offset` into the first of parts whose lengths are `counts`: how many parts
    /// it took whole, and the offset into the next (empty parts it reached count as taken).
    static func advance(over counts: some Sequence<Int>, written: Int, offset: Int) -> (whole: Int, offset: Int) {
        var (written, offset, whole) = (written, offset, 0)
        for count in counts {
            let left = count - offset
            guard written >= left else { return (whole, offset + written) }
            written -= left
            offset = 0
            whole += 1
        }
        return (whole, 0)
    }

    /// One `sendmsg` of `vectors` (`Socket.write(gathering:)` without its array of them): the bytes the kernel
    /// took, `nil` when it takes none; `EINTR` is retried.
    static func send(_ vectors: UnsafeMutableBufferPointer<iovec>, on fd: Int32) throws(SocketError) -> Int? {
        var message = msghdr()
        message.msg_iov = vectors.baseAddress
        message.msg_iovlen = vectors.count
        while true {
            let count = sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw .makeFailed("sendmsg")
            }
        }
    }
}
