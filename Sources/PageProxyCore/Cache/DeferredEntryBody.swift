/// A cache entry's body not read by the walk: only its head was (issue 13, thirteenth pass, a contract amendment:
/// README "Sending from the entry files"). The body stays in its held file and is checked against the XXH64 its head
/// gives as it is sent, whole, before any byte of it leaves (`StagedBodyParts`); one that fails the check (or a short
/// read) cuts the answer it was sent in, and `reportCorrupt` has the store remove the entry.
///
/// The bytes checked are the bytes sent: both are read through `file`, whose inode PageProxy never writes in place
/// (`HeldEntryFile`).
package final class DeferredEntryBody: Sendable {
    package let file: HeldEntryFile
    /// The body's length, as the file's size and its head agree.
    package let length: Int
    /// The XXH64 of the body, from the verified head.
    package let checksum: UInt64
    /// Told of a body that failed its check: the store removes the entry and logs it.
    private let reportCorrupt: @Sendable () -> Void

    package init(file: HeldEntryFile, length: Int, checksum: UInt64, reportCorrupt: @escaping @Sendable () -> Void) {
        self.file = file
        self.length = length
        self.checksum = checksum
        self.reportCorrupt = reportCorrupt
    }

    /// Whether `body` (the whole body, read through `file`) is the one the head describes; when it is not, the store
    /// is told.
    package func check(_ body: UnsafeRawBufferPointer) -> Bool {
        guard body.count == length, XXHash64.hash(body) == checksum else {
            reportCorrupt()
            return false
        }
        return true
    }

    /// The whole body read into memory and checked (a sink that cannot send from a file, the memo, an answer that
    /// must copy its pages); nil when it is short or fails its check (the store is told).
    package func readChecked() -> [UInt8]? {
        guard let bytes = file.readBody(0..<length) else {
            reportCorrupt()
            return nil
        }
        return bytes.withUnsafeBytes(check) ? bytes : nil
    }
}
