#if canImport(Glibc)
import Glibc
#endif

/// A body's parts copied, in order, into a staging buffer a fill at a time, for `AsyncSocket.write(bodyParts:)` to
/// send each fill in one call: file ranges read from their files (`pread`, from the page cache), bytes copied, with
/// no gap at a part's edge (issue 13, twelfth pass: a call a page was ~1,000 calls for a 10.6 MB read-back).
struct StagedBodyParts {
    private let parts: [ResponseBodyPart]
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
    /// with fewer bytes than its range (cut short in place), `.failed(call: "pread", errno: 0)`, a failed `pread`, or a
    /// file written in place since its body was verified, `.failed(call: "fstat", errno: 0)` (its range left out).
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) -> (count: Int, failure: SocketError?) {
        var filled = 0
        while filled < buffer.count, !isFinished {
            if offset == 0, case .bytes(let bytes) = parts[index], bytes.count >= buffer.count { break }
            let part = parts[index]
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<min(buffer.count, filled + part.count - offset)])
            do {
                let copied = try Self.copy(part, from: offset, into: target)
                filled += copied
                offset += copied
            } catch {
                return (filled, error)
            }
            // A range read whole: its file must be as it was when its body was verified (attack13 L1: another program
            // wrote it in place since). If not, none of the range's bytes in this fill are sent, the answer stops
            // there, and the store removes the entry.
            if case .file(let file, let range) = part, offset == range.count, !file.isUnchanged() {
                return Self.changed(file, filled: filled, ofRange: offset)
            }
        }
        // A range this fill ends inside is checked too, before its bytes go out: at its end alone, the fills before
        // the last of a range longer than the buffer went out unchecked (review19 R3).
        if index < parts.endIndex, case .file(let file, let range) = parts[index], offset > 0, offset < range.count, !file.isUnchanged() {
            return Self.changed(file, filled: filled, ofRange: offset)
        }
        return (filled, nil)
    }

    /// The fill cut before the range of `file`, found changed with `copied` of its bytes copied (all of them in this
    /// fill, or it began in an earlier one and is this fill's first part: either way what precedes it is kept).
    private static func changed(_ file: HeldEntryFile, filled: Int, ofRange copied: Int) -> (count: Int, failure: SocketError?) {
        file.reportChanged()
        return (max(0, filled - copied), .failed(call: "fstat", errno: 0))
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
