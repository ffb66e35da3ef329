/// One part of a response body of known length: bytes in memory, or a range of an open entry file's body, sent from
/// the file by a socket (read into its staging buffer as it sends: `AsyncSocket.write(bodyParts:)`), never kept in
/// memory (issue 13, eighth and twelfth passes).
package enum ResponseBodyPart: Sendable {
    /// Bytes the caller holds (a head, the array's punctuation, a page's items in memory).
    case bytes(ArraySlice<UInt8>)
    /// `range` of `file`'s body (offsets in the body, not the file).
    case file(HeldEntryFile, Range<Int>)

    /// How many bytes the part is.
    package var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .file(_, let range): range.count
        }
    }

    /// The part's bytes in memory: a file's range read back (a sink that cannot send from a file, the memo); nil when
    /// the file no longer has them (it was cut short in place), or was written in place since its body was verified
    /// (attack13 L1: the store is told, and removes the entry).
    package var bytes: ArraySlice<UInt8>? {
        switch self {
        case .bytes(let bytes): return bytes
        case .file(let file, let range):
            guard let bytes = file.readBody(range), file.isUnchanged() else {
                file.reportChanged()
                return nil
            }
            return bytes[...]
        }
    }
}
