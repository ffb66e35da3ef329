/// One part of a response body of known length: bytes in memory, or a range of an open entry file's body, sent from
/// the file by a socket (read into its staging buffer as it sends: `AsyncSocket.write(bodyParts:)`), never kept in
/// memory (issue 13, eighth and twelfth passes).
package enum ResponseBodyPart: Sendable {
    /// Bytes the caller holds (a head, the array's punctuation, a page's items in memory).
    case bytes(ArraySlice<UInt8>)
    /// `range` of `file`'s body (offsets in the body, not the file).
    case file(HeldEntryFile, Range<Int>)
    /// `range` of a body left in its file unread (`DeferredEntryBody`): the whole body is read and checked before any
    /// byte of the range is sent; one that fails stops the answer there (issue 13, thirteenth pass).
    case checkedFile(DeferredEntryBody, Range<Int>)

    /// How many bytes the part is.
    package var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .file(_, let range), .checkedFile(_, let range): range.count
        }
    }

    /// The part's bytes in memory: a file's range read back (a sink that cannot send from a file, the memo); nil when
    /// the file no longer has them (it was cut short in place), or a body left unread fails its check.
    package var bytes: ArraySlice<UInt8>? {
        switch self {
        case .bytes(let bytes): bytes
        case .file(let file, let range): file.readBody(range)?[...]
        case .checkedFile(let body, let range): body.readChecked()?[range]
        }
    }
}
