/// A merged answer's bytes until they are sent: in memory while small (or while a process-wide `HeldBytesBudget`
/// lends the bytes past the threshold), in a `SpoolFile` past it, and refused past a cap.
///
/// DESIGN.md: memory stays bounded whatever the total. A merged answer can only be sent once every page has arrived
/// (its status must be honest), so its bytes have to wait somewhere; small answers wait in memory, where most
/// answers fit and a file would only cost system calls, and larger ones on disk, so that a million items cost disk
/// space rather than resident memory. Any failure discards what was held, the temporary file included.
package final class SpooledBody {
    /// Where the bytes may wait, and how many.
    package struct Limits: Sendable {
        /// Answers up to this size stay in memory.
        package var memoryBytes = 1 << 20
        /// Past this the answer is refused with `SpoolError.tooLarge`.
        package var maxBytes = 1 << 30

        package init(memoryBytes: Int = 1 << 20, maxBytes: Int = 1 << 30) {
            self.memoryBytes = memoryBytes
            self.maxBytes = maxBytes
        }
    }

    /// Makes the temporary file when the answer outgrows memory.
    package typealias SpoolOpener = @Sendable () throws(SpoolError) -> SpoolFile

    private let limits: Limits
    private let openSpool: SpoolOpener
    /// The memory the answer may hold: `limits.memoryBytes`, then what the process's budget lends before it spools.
    private var loan: HeldBytesLoan
    /// The bytes held in memory, in segments that are never reallocated: each is reserved once and filled, and the
    /// next starts when it is full (issue 13: a buffer grown by doubling copied a 10 MB answer again and faulted
    /// in twice its pages). Segments grow from `firstSegmentBytes` to `largestSegmentBytes`.
    private var segments: [[UInt8]] = []
    /// The memory the segments take: their capacities, not their counts (a segment is reserved whole), which is what
    /// the loan is charged (issue 13, sixth pass: counting the bytes written let an answer hold up to twice its loan).
    private var segmentCapacity = 0
    private var spool: SpoolFile?
    /// Bytes appended so far: the answer's `Content-Length` once it is complete.
    package private(set) var count = 0

    package init(limits: Limits, openSpool: @escaping SpoolOpener, budget: HeldBytesBudget? = nil) {
        self.limits = limits
        self.openSpool = openSpool
        self.loan = HeldBytesLoan(allowance: limits.memoryBytes, budget: budget)
    }

    deinit { loan.giveBack() }

    /// Borrowed bytes are taken in steps of this size, so that a growing answer asks the budget rarely.
    static let borrowStep = HeldBytesLoan.step

    /// Whether segments of `capacity` bytes in all may stay in memory: within the allowance, or within it plus what
    /// could be borrowed.
    private func mayHoldInMemory(_ capacity: Int) -> Bool { loan.mayHold(capacity) }

    /// The capacity of a segment started for `bound` more bytes.
    private func newSegmentBytes(forAtMost bound: Int) -> Int {
        // Each segment twice the bytes held so far, within the limits: few segments, none much larger than needed;
        // and while within the allowance, none past it (a small allowance is not spent by one reserved segment).
        let growth = min(Self.largestSegmentBytes, max(Self.firstSegmentBytes, count))
        let roomInAllowance = limits.memoryBytes - segmentCapacity
        return max(bound, roomInAllowance > 0 ? min(growth, roomInAllowance) : growth)
    }

    /// What the segments take once up to `bound` more bytes are written in one piece (`append(atMost:)`).
    private func capacity(afterAtMost bound: Int) -> Int {
        if let last = segments.last, last.capacity - last.count >= bound { return segmentCapacity }
        return segmentCapacity + newSegmentBytes(forAtMost: bound)
    }

    /// What the segments take once `byteCount` more bytes are appended (`appendInMemory`: the last segment's room,
    /// then one new segment for the rest).
    private func capacity(afterAppending byteCount: Int) -> Int {
        let room = segments.last.map { $0.capacity - $0.count } ?? 0
        guard byteCount > room else { return segmentCapacity }
        return segmentCapacity + newSegmentBytes(forAtMost: byteCount - room)
    }

    /// The first segment's capacity: a small answer takes one small allocation.
    static let firstSegmentBytes = 64 << 10
    /// The largest segment's capacity (unless one append needs more): large enough that an answer is a few writes.
    static let largestSegmentBytes = 1 << 20

    /// The segment to write up to `bound` more bytes into, started (reserved once, at its final size) when the last
    /// one has no room for them.
    private func segmentIndex(forAtMost bound: Int) -> Int {
        if let last = segments.indices.last, segments[last].capacity - segments[last].count >= bound { return last }
        let size = newSegmentBytes(forAtMost: bound)
        var segment: [UInt8] = []
        segment.reserveCapacity(size)
        // Charged as reserved (the allocator may round the capacity up by a few bytes).
        segmentCapacity += size
        segments.append(segment)
        return segments.count - 1
    }

    /// Appends `bytes` to the segments: the last one's room, then one new segment for the rest.
    private func appendInMemory(_ bytes: [UInt8]) {
        var rest = bytes[...]
        if let last = segments.indices.last {
            let room = segments[last].capacity - segments[last].count
            segments[last].append(contentsOf: rest.prefix(room))
            rest = rest.dropFirst(room)
        }
        guard !rest.isEmpty else { return }
        let index = segmentIndex(forAtMost: rest.count)
        segments[index].append(contentsOf: rest)
    }

    /// Gives back what was borrowed (the bytes moved to disk, or were dropped).
    private func giveBack() { loan.giveBack() }

    /// Whether the bytes have moved to a temporary file.
    package var isSpooled: Bool { spool != nil }

    /// The whole body while it is held in memory; nil once it has moved to disk.
    package var inMemory: [UInt8]? { spool == nil ? Self.joined(segments) : nil }

    /// How many separately allocated segments hold the bytes in memory (tests: an answer is not copied as it grows).
    package var segmentCount: Int { segments.count }

    private static func joined(_ segments: [[UInt8]]) -> [UInt8] {
        guard segments.count > 1 else { return segments.first ?? [] }
        var all: [UInt8] = []
        all.reserveCapacity(segments.reduce(0) { $0 + $1.count })
        for segment in segments { all += segment }
        return all
    }

    /// Appends `bytes`, moving everything to a temporary file once the total passes `limits.memoryBytes`.
    /// - Throws: `SpoolError.tooLarge` past `limits.maxBytes`, or the spool's own failure; everything held is then
    ///   discarded and the temporary file closed.
    package func append(_ bytes: [UInt8]) throws(SpoolError) {
        guard bytes.count <= limits.maxBytes - count else {
            discard()
            throw .tooLarge(limit: limits.maxBytes)
        }
        do {
            if spool == nil && !mayHoldInMemory(capacity(afterAppending: bytes.count)) {
                let file = try openSpool()
                spool = file
                for segment in segments { try file.append(segment) }
                segments = []
                segmentCapacity = 0
                giveBack()
            }
            if let spool {
                try spool.append(bytes)
            } else {
                appendInMemory(bytes)
            }
        } catch {
            discard()
            throw error
        }
        count += bytes.count
    }

    /// Appends what `write` adds to a buffer (at most `bound` bytes): straight into the memory buffer while the answer
    /// stays in memory, with no array in between (issue 13: copies between splice and write); otherwise through
    /// `append(_:)`. `appended` is shown the bytes added (valid only during the call).
    /// - Throws: as `append(_:)`.
    package func append(
        atMost bound: Int, _ write: (inout [UInt8]) -> Void, appended: (ArraySlice<UInt8>) -> Void
    ) throws(SpoolError) {
        guard spool == nil, bound <= limits.maxBytes - count, mayHoldInMemory(capacity(afterAtMost: bound)) else {
            var bytes: [UInt8] = []
            write(&bytes)
            try append(bytes)
            appended(bytes[...])
            return
        }
        let index = segmentIndex(forAtMost: bound)
        let start = segments[index].count
        write(&segments[index])
        count += segments[index].count - start
        appended(segments[index][start...])
    }

    /// The whole body in memory: as held, or read back from its temporary file (for an answer kept past this request).
    package func bytes() throws(SpoolError) -> [UInt8] {
        guard spool != nil else { return Self.joined(segments) }
        var all: [UInt8] = []
        all.reserveCapacity(count)
        var chunks = chunks(of: 1 << 20)
        while let chunk = try chunks.next() { all += chunk }
        return all
    }

    /// The bytes in chunks of at most `chunkSize` (an answer still in memory comes as its segments, uncopied).
    package func chunks(of chunkSize: Int) -> Chunks {
        if let spool { return Chunks(source: .spool(spool.chunks(of: chunkSize))) }
        return Chunks(source: .memory(segments[...]))
    }

    /// Drops the bytes and closes the temporary file; the body is empty afterwards.
    package func discard() {
        spool?.close()
        spool = nil
        segments = []
        segmentCapacity = 0
        count = 0
        giveBack()
    }

    /// Reads a body front to back, one bounded chunk per call.
    package struct Chunks {
        enum Source {
            case memory(ArraySlice<[UInt8]>)
            case spool(SpoolFile.Chunks)
        }

        var source: Source

        /// The next chunk, nil at the end.
        package mutating func next() throws(SpoolError) -> [UInt8]? {
            switch source {
            case .memory(var segments):
                while let segment = segments.popFirst() {
                    guard !segment.isEmpty else { continue }
                    source = .memory(segments)
                    return segment
                }
                source = .memory([])
                return nil
            case .spool(var chunks):
                let chunk = try chunks.next()
                source = .spool(chunks)
                return chunk
            }
        }
    }
}
