#if canImport(Glibc)
import Glibc
#endif

/// A body's parts copied, in order, into a staging buffer a fill at a time, for `AsyncSocket.write(bodyParts:)` to
/// send each fill in one call: file ranges read from their files (`pread`, from the page cache), bytes copied, with
/// no gap at a part's edge (issue 13, twelfth pass: a call a page was ~1,000 calls for a 10.6 MB read-back).
///
/// A body left unread in its file (`.checkedFile`, issue 13, thirteenth pass) is read whole into the buffer and checked
/// before any byte of it is staged for sending: it starts a fill of its own when it does not fit in what is left of
/// one, and one larger than the buffer is read into memory, checked, and sent from there. A body that fails its check
/// stops the copy before it: the fill has the bytes before it, then the failure.
struct StagedBodyParts {
    private var parts: [ResponseBodyPart]
    /// The next part to copy, and how much of it is copied already.
    private var index: Int
    private var offset = 0

    init(_ parts: [ResponseBodyPart]) {
        self.parts = parts
        index = parts.startIndex
    }

    /// Whether every part has been taken.
    var isFinished: Bool {
        mutating get {
            skipEmpty()
            return index == parts.endIndex
        }
    }

    /// The next part, whole, when it is bytes in memory of at least `count` (a page held as bytes): to be sent from
    /// where it is, as copying it would not save a call.
    mutating func takeBytes(atLeast count: Int) -> ArraySlice<UInt8>? {
        skipEmpty()
        guard index < parts.endIndex, offset == 0, case .bytes(let bytes) = parts[index], bytes.count >= count else { return nil }
        index += 1
        return bytes
    }

    /// Copies the next bytes into `buffer` until it is full, the parts end, or the next part is bytes of at least
    /// `buffer.count` (see `takeBytes`). Returns how many it copied, and the failure that stopped it early: a file
    /// with fewer bytes than its range (cut short in place), `.failed(call: "pread", errno: 0)`, or a failed `pread`.
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) -> (count: Int, failure: SocketError?) {
        var filled = 0
        while filled < buffer.count, !isFinished {
            if offset == 0, case .bytes(let bytes) = parts[index], bytes.count >= buffer.count { break }
            if offset == 0, case .checkedFile(let body, let range) = parts[index] {
                if body.length > buffer.count - filled {
                    // Whole or not at all: what is staged leaves first, and the body starts the next fill.
                    if filled > 0 { break }
                    guard let bytes = body.readChecked() else { return (filled, Self.checkFailed) }
                    parts[index] = .bytes(bytes[range])
                    continue
                }
                guard Self.stageChecked(body, range, into: buffer, at: filled) else { return (filled, Self.checkFailed) }
                filled += range.count
                index += 1
                continue
            }
            let part = parts[index]
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<min(buffer.count, filled + part.count - offset)])
            do {
                let copied = try Self.copy(part, from: offset, into: target)
                filled += copied
                offset += copied
            } catch {
                return (filled, error)
            }
        }
        return (filled, nil)
    }

    /// What a fill stops with at a body that failed its check, or was short.
    static let checkFailed = SocketError.failed(call: "xxh64", errno: EIO)

    /// Reads `body` whole into `buffer` so that its `range` lands at `filled`, checks it, and leaves the bytes staged
    /// before `filled` as they were; false (nothing staged) when it is short or fails its check.
    /// - Precondition: `body.length <= buffer.count - filled`.
    private static func stageChecked(
        _ body: DeferredEntryBody, _ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer, at filled: Int
    ) -> Bool {
        guard let base = buffer.baseAddress else { return false }
        // The body's bytes before the range (`[`, a wrapper's start) go over the end of what is staged, which is kept
        // aside meanwhile; at the buffer's start there is no room for them, and the range is moved down after.
        let kept = min(range.lowerBound, filled)
        let start = filled - kept
        return withUnsafeTemporaryAllocation(byteCount: kept, alignment: 1) { saved in
            if let savedBase = saved.baseAddress { savedBase.copyMemory(from: base + start, byteCount: kept) }
            var done = 0
            while done < body.length {
                let read = pread(body.file.descriptor, base + start + done, body.length - done, off_t(body.file.bodyOffset + done))
                if read < 0, errno == EINTR { continue }
                if read <= 0 { break }
                done += read
            }
            let checked = body.check(UnsafeRawBufferPointer(start: base + start, count: done))
            if let savedBase = saved.baseAddress { (base + start).copyMemory(from: savedBase, byteCount: kept) }
            guard checked else { return false }
            if start + range.lowerBound != filled { memmove(base + filled, base + start + range.lowerBound, range.count) }
            return true
        }
    }

    /// Past the parts copied whole and the empty ones.
    private mutating func skipEmpty() {
        while index < parts.endIndex, offset == parts[index].count {
            index += 1
            offset = 0
        }
    }

    /// Copies bytes of `part` from `offset` into `target` (as many as fit); returns how many. A file range is read with
    /// one `pread`, which gives at least one byte or fails.
    private static func copy(_ part: ResponseBodyPart, from offset: Int, into target: UnsafeMutableRawBufferPointer) throws(SocketError) -> Int {
        guard let base = target.baseAddress, !target.isEmpty else { return 0 }
        switch part {
        case .bytes(let bytes):
            let count = min(target.count, bytes.count - offset)
            bytes.withUnsafeBytes { raw in
                if let source = raw.baseAddress { base.copyMemory(from: source + offset, byteCount: count) }
            }
            return count
        case .checkedFile:
            // Staged whole by `fill` (`stageChecked`), never here.
            return 0
        case .file(let file, let range):
            let count = min(target.count, range.count - offset)
            while true {
                let read = pread(file.descriptor, base, count, off_t(file.bodyOffset + range.lowerBound + offset))
                if read > 0 { return read }
                // The file ended before the range: cut short in place (entries are only replaced by rename).
                if read == 0 { throw .failed(call: "pread", errno: 0) }
                if errno != EINTR { throw .failed(call: "pread", errno: errno) }
            }
        }
    }
}
