#if canImport(Glibc)
import Glibc
#endif

/// A merged answer's pages held as they arrived, not copied: the answer is sent as slices of the pages' own bodies
/// (`[`, each page's run of items, `,` between them, `]`) in gathering writes.
///
/// Issue 13: a 10.6 MB read-back copied every page into the answer's buffer, and faulted that buffer in afresh on
/// every request (its memory goes back to the system when it is freed): a fifth of the walk. The pages are in memory
/// anyway while they are handed out, and a page the cache keeps in memory is shared, not copied.
///
/// A page read back from its entry file (`Page.bodyFile`) is held as that file's range of its items, not as its body:
/// the body's memory is let go at once (malloc hands it to the next page), and the range is sent from the file
/// (issue 13, eighth pass: on the first read-back after a restart the held bodies were ~3,200 fresh page faults).
///
/// A page is held while its items are one run of its body (a compact upstream array, the common case) and its whole
/// body fits the answer's memory: its allowance, then what the process's `HeldBytesBudget` lends (the body, not only
/// the run, is what stays in memory). The first page that does not qualify ends the holding: the caller moves what
/// was held into its `SpooledBody` (`move(into:)`) and goes on there, so the memory bound is the spooled answer's.
package final class MergedHeldPages {
    /// The answer so far: the framing's punctuation and the pages' runs of items (in memory, or in their files), in order.
    private var parts: [ResponseBodyPart] = []
    /// The answer's bytes so far (without its closing bracket).
    package private(set) var length = 0
    /// False once a page could not be held: from then on the answer is copied.
    package private(set) var isHolding = true
    /// What the held pages' bodies take.
    private var loan: HeldBytesLoan
    private var heldBytes = 0
    /// The answer's cap (the route's `maxMergedBytes`): past it the copy path refuses the answer, as it always has.
    private let maxBytes: Int

    package init(allowance: Int, budget: HeldBytesBudget?, maxBytes: Int) {
        self.loan = HeldBytesLoan(allowance: allowance, budget: budget)
        self.maxBytes = maxBytes
    }

    deinit { loan.giveBack() }

    /// How many parts hold the answer (tests: pages are held, not copied).
    package var partCount: Int { parts.count }

    /// Holds `page` as the answer's next page, framed by `framing`, and adds it to `etag` as the copy would have; when
    /// it cannot be held, changes nothing, holds nothing more and returns false.
    package func hold(_ page: Page, framing: inout MergedJSONBody, etag: inout AggregateETag) -> Bool {
        guard isHolding else { return false }
        let run: Range<Int>
        if page.itemCount == 0 {
            run = 0..<0
        } else if let items = page.commaSeparatedItems {
            run = items
        } else {
            isHolding = false
            return false
        }
        // With at most one byte before the items (`[` or `,`) and the closing `]`; an empty page keeps no body, nor
        // does one sent from its file. The body's capacity is what stays in memory, not its count (issue 13, sixth pass).
        let file = run.isEmpty ? nil : page.bodyInFile?.file ?? page.bodyFile
        let kept = run.isEmpty || file != nil ? 0 : page.body.capacity
        guard length + run.count + 2 <= maxBytes, loan.mayHold(heldBytes + kept) else {
            isHolding = false
            return false
        }
        let prefix = framing.prefix(for: page)
        // A body left in its file has no bytes here (issue 13, fourteenth pass): its run is sent from the file, and its
        // stored checksum stands for it in the tag (the closure below is asked only for a page that has none).
        let items = page.bodyInFile == nil ? page.body[run] : []
        // Room for the first pages and the closing bracket at once (issue 13: the parts grew twice in a one-page answer).
        if parts.isEmpty { parts.reserveCapacity(Self.initialParts) }
        if !prefix.isEmpty { parts.append(.bytes(prefix[...])) }
        if let file {
            parts.append(.file(file, run))
        } else if !items.isEmpty {
            parts.append(.bytes(items))
        }
        heldBytes += kept
        length += prefix.count + run.count
        etag.add(page, framedCount: prefix.count + run.count) { prefix + items }
        return true
    }

    /// The answer's parts with `closing` (the framing's): slices of the held pages and ranges of their files, nothing
    /// copied. Asked once, at the end: `closing` joins the parts themselves (issue 13: a second array a request).
    package func parts(closing: [UInt8]) -> [ResponseBodyPart] {
        if !isClosed {
            isClosed = true
            parts.append(.bytes(closing[...]))
        }
        return parts
    }

    /// Whether any part is a range of an entry file (tests: the page is sent from its file).
    package var holdsFiles: Bool {
        parts.contains { if case .file = $0 { true } else { false } }
    }

    /// Whether `slices(closing:)` has added the closing part.
    private var isClosed = false

    /// The parts made room for at the first page: a one-page answer's three (`[`, its items, `]`) and a few more.
    private static let initialParts = 8

    /// The answer's bytes in one array (for the memo, which keeps them past the pages), files' ranges read back; nil
    /// when a file no longer has its range's bytes.
    package func joined(closing: [UInt8]) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + closing.count)
        for part in parts {
            guard let part = part.bytes else { return nil }
            bytes += part
        }
        return isClosed ? bytes : bytes + closing
    }

    /// Copies what was held into `body`, in order, then drops the pages and gives their memory back; holds nothing
    /// more. The loan is given back only after the copy, so the body cannot borrow what the pages still take: it
    /// spools past its own allowance instead.
    /// - Throws: as `SpooledBody.append`.
    package func move(into body: SpooledBody) throws(SpoolError) {
        isHolding = false
        defer {
            parts = []
            heldBytes = 0
            length = 0
            loan.giveBack()
        }
        for part in parts {
            // A file cut short in place since its body was verified: the answer cannot be made.
            guard let part = part.bytes else { throw .readFailed(errno: EIO) }
            try body.append(atMost: part.count) { $0 += part } appended: { _ in }
        }
    }
}
