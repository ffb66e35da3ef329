/// An OpenSSL `SSL_CTX`: the trust (or, for a server, the certificate) shared by many TLS connections.
// @unchecked: `context` is set once in `init` and freed in `deinit`; OpenSSL allows one SSL_CTX to be shared by
// connections on many threads once it is configured, and nothing here configures it after `init`.
package final class TLSContext: @unchecked Sendable {
    let library: OpenSSL
    let context: OpaquePointer

    private init(library: OpenSSL, context: OpaquePointer) {
        self.library = library
        self.context = context
    }

    deinit {
        library.contextFree(context)
    }

    /// A client context that verifies servers against `caFile` (PEM), or the system trust store when `nil`.
    package static func client(caFile: String?) -> Result<TLSContext, TLSError> {
        let made = make { $0.tlsClientMethod() }
        guard case .success(let tls) = made else { return made }
        let library = tls.library
        library.contextSetVerify(tls.context, OpenSSL.verifyPeer, nil)
        if let caFile {
            guard library.contextLoadVerifyLocations(tls.context, caFile, nil) == 1 else {
                return .failure(.configuration("could not load CA file \(caFile): \(library.lastErrorText())"))
            }
        } else {
            guard library.contextSetDefaultVerifyPaths(tls.context) == 1 else {
                return .failure(.configuration("could not load the system trust store: \(library.lastErrorText())"))
            }
        }
        return .success(tls)
    }

    /// A server context with a certificate chain and its private key (PEM files): tests serve TLS with it.
    package static func server(certificateChain: String, privateKey: String) -> Result<TLSContext, TLSError> {
        let made = make { $0.tlsServerMethod() }
        guard case .success(let tls) = made else { return made }
        let library = tls.library
        guard library.contextUseCertificateChainFile(tls.context, certificateChain) == 1,
            library.contextUsePrivateKeyFile(tls.context, privateKey, OpenSSL.filetypePEM) == 1
        else {
            return .failure(.configuration("could not load \(certificateChain) and \(privateKey): \(library.lastErrorText())"))
        }
        return .success(tls)
    }

    private static func make(method: (OpenSSL) -> OpaquePointer?) -> Result<TLSContext, TLSError> {
        let library: OpenSSL
        switch OpenSSL.shared {
        case .success(let loaded): library = loaded
        case .failure(let error): return .failure(error)
        }
        guard let context = library.contextNew(method(library)) else {
            return .failure(.configuration("SSL_CTX_new failed: \(library.lastErrorText())"))
        }
        _ = library.contextControl(context, OpenSSL.controlSetMinProtocol, OpenSSL.tls12, nil)
        _ = library.contextControl(context, OpenSSL.controlMode, OpenSSL.modePartialMovingWrites, nil)
        // An upstream that closes without close_notify ends the stream; HTTP framing still detects truncation.
        _ = library.contextSetOptions(context, OpenSSL.optionIgnoreUnexpectedEOF)
        return .success(TLSContext(library: library, context: context))
    }
}
