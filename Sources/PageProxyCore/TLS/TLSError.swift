/// Why a TLS connection could not be used.
package enum TLSError: Error, Equatable, CustomStringConvertible {
    /// OpenSSL is not on this system.
    case unavailable(String)
    /// The trust store or a certificate file could not be loaded.
    case configuration(String)
    /// The server's certificate did not verify (the reason is OpenSSL's, e.g. "self-signed certificate").
    case certificateNotVerified(String)
    /// The handshake failed for another reason (protocol versions, a server that does not speak TLS …).
    case handshakeFailed(String)

    package var description: String {
        switch self {
        case .unavailable(let reason): "TLS is unavailable: \(reason)"
        case .configuration(let reason): "TLS configuration failed: \(reason)"
        case .certificateNotVerified(let reason): "the server's certificate did not verify: \(reason)"
        case .handshakeFailed(let reason): "the TLS handshake failed: \(reason)"
        }
    }
}
