import Glibc
import PageProxyCore

/// Where `PageProxy fetch` writes the items: standard output or a file, by write(2), so that a failure (a full disk,
/// a closed pipe) is a message with its reason and exit status 1 (`DescriptorOutput`). FileHandle's `write(_:)` stops the process on one
/// (attack11 U3, found beside it: `--output /dev/full` crashed with "Illegal instruction").
final class FetchOutput {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// `standard output`, or the file's path.
    let name: String

    /// Standard output.
    init() {
        descriptor = STDOUT_FILENO
        ownsDescriptor = false
        name = "standard output"
    }

    /// The file at `path`, created or emptied; throws the reason it cannot be opened.
    init(path: String) throws(WriteFailure) {
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw WriteFailure(errno: errno) }
        descriptor = opened
        ownsDescriptor = true
        name = path
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Writes every byte of `bytes`.
    func write(_ bytes: ArraySlice<UInt8>) throws(WriteFailure) {
        let failure = bytes.withUnsafeBytes { DescriptorOutput.write($0, to: descriptor) }
        if let failure { throw WriteFailure(errno: failure) }
    }

    /// Why a write or an open failed: the system's words for its errno.
    struct WriteFailure: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }
}
