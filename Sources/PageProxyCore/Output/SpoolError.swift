#if canImport(Glibc)
import Glibc
#endif

/// Why a merged answer could not be held until it is sent.
package enum SpoolError: Error, Equatable, CustomStringConvertible {
    /// The answer grew past the route's cap (`maxMergedBytes`).
    case tooLarge(limit: Int)
    /// No temporary file could be made in any spool directory.
    case createFailed(directory: String, errno: Int32)
    /// Appending to the spool failed, for example `ENOSPC` on a full disk.
    case writeFailed(errno: Int32)
    /// Reading the spool back failed.
    case readFailed(errno: Int32)

    package var description: String {
        switch self {
        case .tooLarge(let limit): "the merged answer is larger than this route's limit of \(limit) bytes (maxMergedBytes)"
        case .createFailed(let directory, let code):
            "could not create a temporary file in \(directory) for the merged answer: \(Self.reason(code))"
        case .writeFailed(let code): "could not write the merged answer to its temporary file: \(Self.reason(code))"
        case .readFailed(let code): "could not read the merged answer back from its temporary file: \(Self.reason(code))"
        }
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
