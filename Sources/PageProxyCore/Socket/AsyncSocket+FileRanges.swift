#if canImport(Glibc)
import Glibc
#endif

extension AsyncSocket {
    /// Writes `parts` in order: runs of bytes in gathering writes (`write(slices:)`), file ranges with `sendfile`
    /// from the open file, never copied into user space (issue 13, eighth pass). The socket is corked
    /// (`TCP_CORK`) for the while, so that the one-byte punctuation between file ranges leaves in full segments with
    /// the bytes around it, not as segments of its own; uncorked at the end, whatever happened. Waits while the
    /// peer's window is full; throws `.timedOut` at the deadline.
    /// - Throws: `.failed(call: "sendfile", errno: 0)` when a file has fewer bytes than its range (cut short in place by
    ///   another process): what was sent stays sent, and the caller closes the connection short of its length.
    package func write(bodyParts parts: [ResponseBodyPart], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        _ = withOpenDescriptor { Self.setCork($0, true) }
        defer { _ = withOpenDescriptor { Self.setCork($0, false) } }
        var pending: [ArraySlice<UInt8>] = []
        for part in parts {
            switch part {
            case .bytes(let bytes):
                if !bytes.isEmpty { pending.append(bytes) }
            case .file(let file, let range):
                if !pending.isEmpty {
                    try await write(slices: pending, deadline: deadline)
                    pending.removeAll(keepingCapacity: true)
                }
                try await send(file, range, deadline: deadline)
            }
        }
        if !pending.isEmpty { try await write(slices: pending, deadline: deadline) }
    }

    /// Sends `range` of `file`'s body with `sendfile`, waiting while the peer's window is full.
    private func send(_ file: HeldEntryFile, _ range: Range<Int>, deadline: ContinuousClock.Instant?) async throws(SocketError) {
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
                try await waitUntilWritable(deadline: deadline)
                continue
            }
            left -= count
        }
    }

    private static func setCork(_ fd: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}
