#if canImport(Glibc)
import Glibc
#endif

/// A failed socket call, with the name of the call and the `errno` it left.
package enum SocketError: Error, Equatable, CustomStringConvertible {
    /// The peer closed the connection or reset it.
    case disconnected
    /// The deadline passed before the socket became ready.
    case timedOut
    /// The socket was closed locally while a task waited on it.
    case cancelled
    /// An address that is not an IPv4 or IPv6 literal, or a host name that does not resolve.
    case invalidAddress(String)
    /// A system call failed.
    case failed(call: String, errno: Int32)

    package var description: String {
        switch self {
        case .disconnected: "connection closed by peer"
        case .timedOut: "timed out"
        case .cancelled: "socket closed"
        case .invalidAddress(let address): "invalid address \(address)"
        case .failed(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }

    /// Builds a `.failed` from the current `errno`; read it right after the call that failed.
    package static func makeFailed(_ call: String) -> SocketError {
        let code = errno
        if code == ECONNRESET || code == EPIPE || code == ENOTCONN {
            return .disconnected
        }
        return .failed(call: call, errno: code)
    }
}
