#if canImport(Glibc)
import Glibc
#endif

extension AsyncSocket {
    /// Writes `parts` in order: an answer of bytes only in gathering writes (`sendmsg`, from where they are, as
    /// `write(slices:)`); one with file ranges through a staging buffer (`write(staging:)`). Waits while the peer's
    /// window is full; throws `.timedOut` at the deadline.
    /// - Throws: `.failed(call: "pread", errno: 0)` when a file has fewer bytes than its range (cut short in place by
    ///   another process): what came before it is sent, and the caller closes the connection short of its length.
    package nonisolated(nonsending) func write(bodyParts parts: [ResponseBodyPart], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        try await write(bodyParts: parts, deadline: .at(deadline))
    }

    /// Writes `parts` in order (as `write(bodyParts:deadline:)` with an instant); `deadline` may be renewed as the peer
    /// takes bytes.
    package nonisolated(nonsending) func write(bodyParts parts: [ResponseBodyPart], deadline: WriteDeadline) async throws(SocketError) {
        var deadline = deadline
        if parts.contains(where: { $0.isFileRange }) {
            try await write(staging: parts, deadline: &deadline)
            return
        }
        var index = parts.startIndex
        var offset = 0  // into `parts[index]`
        while index < parts.endIndex {
            let run = parts[index..<(index + Self.gatheredRun(parts[index...].lazy.map { $0.count }, skipping: offset))]
            let result = withOpenDescriptor { fd in
                Self.withVectors(of: run, skipping: offset, bytes: { $0.inMemory }) { vectors in
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
            let taken = Self.advance(over: run.lazy.map { $0.count }, written: written, offset: offset)
            index += taken.whole
            offset = taken.offset
        }
    }

    /// Writes `parts` through one staging buffer of `stagingBytes` at most: file ranges are read into it (`pread`, from
    /// the page cache) with the bytes between them (the commas), and each full buffer leaves in one `send`
    /// (`StagedBodyParts`).
    ///
    /// Issue 13, twelfth pass: a `sendfile` a page and a `sendmsg` a comma were ~1,000 system calls for a 10.6 MB
    /// read-back of 501 pages, each pushing a ~21 KB segment through loopback TCP (~9.6 ms, the same bytes from memory
    /// ~4 ms); a copy from the page cache into a reused buffer costs ~1 ms for the same bytes, and the sends are then
    /// ~40. An in-memory part of at least a buffer's size (a page held as bytes) is sent from where it is instead,
    /// after what was staged before it: copying it would not save a call.
    ///
    /// The bytes read are the verified ones for the reasons `HeldEntryFile` gives (read through the descriptor they
    /// were verified through). A file with fewer bytes than its range (cut short in place) stops the write: what was
    /// staged before is sent, then `.failed(call: "pread", errno: 0)`.
    private nonisolated(nonsending) func write(staging parts: [ResponseBodyPart], deadline: inout WriteDeadline) async throws(SocketError) {
        // No larger than the answer (a one-page answer takes ~21 KB, not the whole buffer).
        let length = parts.reduce(0) { $0 + $1.count }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(Self.stagingBytes, max(1, length)), alignment: 64)
        defer { buffer.deallocate() }
        var staged = StagedBodyParts(parts)
        while !staged.isFinished {
            if let bytes = staged.takeBytes(atLeast: buffer.count) {
                try await write(slices: [bytes], deadline: deadline)
                // It took bytes: the idle deadline starts again from here.
                deadline.noteProgress()
                continue
            }
            let (count, failure) = staged.fill(buffer)
            try await send(UnsafeRawBufferPointer(rebasing: buffer[..<count]), deadline: &deadline)
            if let failure { throw failure }
        }
    }

    /// The staging buffer's size: large enough that the ~21 KB pages of a read-back leave ~12 to a `send` (loopback
    /// takes it in ~64 KB segments), small enough to be a transient allocation (bench/readback_send_floor.py: 64 KB
    /// sent ~1.5× slower than 256 KB; 1 MB no faster).
    static let stagingBytes = 256 << 10

    /// Sends every byte of `bytes` with `send`, waiting while the peer's window is full.
    private nonisolated(nonsending) func send(_ bytes: UnsafeRawBufferPointer, deadline: inout WriteDeadline) async throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let result = withOpenDescriptor { fd in
                Result { () throws(SocketError) -> Int? in try Socket(fd: fd).write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
            }
            guard let result else { throw .cancelled }
            guard let count = try result.get() else {
                try await waitUntilWritable(deadline: deadline.forWaiting())
                continue
            }
            offset += count
            noteWritten(count)
            deadline.noteProgress()
        }
    }
}

extension ResponseBodyPart {
    /// Whether the part is a range of an entry file.
    package var isFileRange: Bool {
        if case .file = self { true } else { false }
    }

    /// The part's bytes when they are in memory.
    fileprivate var inMemory: ArraySlice<UInt8>? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }
}
