#if canImport(Glibc)
import Glibc
#endif

/// Writes bytes to a file descriptor with write(2), every byte or an error. What the process writes to standard
/// output and standard error goes through here, never through Foundation's `FileHandle.write(_:)`: that one stops the
/// process on any failure (swift-corelibs-foundation writes with `try!`), so a log line to a terminal that closed
/// (EIO after SIGHUP), a pipe whose reader left (EPIPE), a restarted journald or a full disk would crash the server
/// and cut every answer in flight (review13 B1; attack11 U3 found it in `fetch`). A pipe whose reader left is EPIPE
/// only where SIGPIPE is ignored, as the executable does before anything is written (`PageProxyCommand.main`); a
/// process that embeds the server must ignore it too (review14 F4).
package enum DescriptorOutput {
    /// Writes all of `bytes` to `descriptor`, again after a signal or a short write; nil, or the errno of the failure.
    package static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var written = 0
        while written < bytes.count, let base = bytes.baseAddress {
            let count = Glibc.write(descriptor, base + written, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += count
        }
        return nil
    }

    /// Writes `text` as UTF-8 to `descriptor`; nil, or the errno of the failure.
    @discardableResult
    package static func write(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { write(UnsafeRawBufferPointer($0), to: descriptor) }
    }
}
