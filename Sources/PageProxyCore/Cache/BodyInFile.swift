/// A cache entry's body that was read through a reused buffer, checked against its head's XXH64, and not kept: it
/// stays in the held entry file, from which a merged answer sends its items (issue 13, fourteenth pass: on the first
/// read-back after a restart the bodies were read into fresh memory, ~3,000 page faults, only to be let go once held as
/// file ranges). The entry's `body` is then empty: a reader that needs the bytes reads them back (`read`), checked again.
package struct BodyInFile: Sendable {
    package let file: HeldEntryFile
    /// The body's length, as the file's size and its head agree.
    package let length: Int
    /// The body's XXH64, as its head gives it and the read found it.
    package let checksum: UInt64

    package init(file: HeldEntryFile, length: Int, checksum: UInt64) {
        self.file = file
        self.length = length
        self.checksum = checksum
    }

    /// The whole body in memory, read back through the held file and checked again (its XXH64, and that no one wrote the
    /// file in place since it was verified); nil when it is not the body verified (the store is told, and removes the
    /// entry).
    package func read() -> [UInt8]? {
        guard let bytes = file.readBody(0..<length), XXHash64.hash(bytes) == checksum, file.isUnchanged() else {
            file.reportChanged()
            return nil
        }
        return bytes
    }
}
