#if canImport(Glibc)
import Glibc
#endif

/// The few OpenSSL functions PageProxy's TLS needs, found at run time in the system's `libssl.so.3`.
///
/// Loaded with `dlopen` the first time an `https://` upstream is used, so a proxy with only `http://` routes never
/// maps OpenSSL (its idle memory stays small), and the package has no build-time dependency: the library is the
/// one every Debian and Ubuntu system (and the toolchain's own FoundationNetworking) already has. Every function
/// used is a plain, non-variadic C function, so calling it through a typed pointer is well defined.
package struct OpenSSL: Sendable {
    typealias Pointer = OpaquePointer
    // The function pointers below are immutable after loading and OpenSSL (1.1+) is thread-safe for these calls.
    nonisolated(unsafe) let tlsClientMethod: @convention(c) () -> Pointer?
    nonisolated(unsafe) let tlsServerMethod: @convention(c) () -> Pointer?
    nonisolated(unsafe) let contextNew: @convention(c) (Pointer?) -> Pointer?
    nonisolated(unsafe) let contextFree: @convention(c) (Pointer?) -> Void
    nonisolated(unsafe) let contextSetVerify: @convention(c) (Pointer?, Int32, OpaquePointer?) -> Void
    nonisolated(unsafe) let contextSetDefaultVerifyPaths: @convention(c) (Pointer?) -> Int32
    nonisolated(unsafe) let contextLoadVerifyLocations: @convention(c) (Pointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    nonisolated(unsafe) let contextUseCertificateChainFile: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
    nonisolated(unsafe) let contextUsePrivateKeyFile: @convention(c) (Pointer?, UnsafePointer<CChar>?, Int32) -> Int32
    nonisolated(unsafe) let contextControl: @convention(c) (Pointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int
    nonisolated(unsafe) let contextSetOptions: @convention(c) (Pointer?, UInt64) -> UInt64
    nonisolated(unsafe) let sslNew: @convention(c) (Pointer?) -> Pointer?
    nonisolated(unsafe) let sslFree: @convention(c) (Pointer?) -> Void
    nonisolated(unsafe) let sslSetFD: @convention(c) (Pointer?, Int32) -> Int32
    nonisolated(unsafe) let sslControl: @convention(c) (Pointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int
    nonisolated(unsafe) let sslSet1Host: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
    nonisolated(unsafe) let sslGet0Param: @convention(c) (Pointer?) -> Pointer?
    nonisolated(unsafe) let verifyParamSet1IPASC: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
    nonisolated(unsafe) let sslConnect: @convention(c) (Pointer?) -> Int32
    nonisolated(unsafe) let sslAccept: @convention(c) (Pointer?) -> Int32
    nonisolated(unsafe) let sslRead: @convention(c) (Pointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    nonisolated(unsafe) let sslPeek: @convention(c) (Pointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    nonisolated(unsafe) let sslHasPending: @convention(c) (Pointer?) -> Int32
    nonisolated(unsafe) let sslWrite: @convention(c) (Pointer?, UnsafeRawPointer?, Int32) -> Int32
    nonisolated(unsafe) let sslGetError: @convention(c) (Pointer?, Int32) -> Int32
    nonisolated(unsafe) let sslShutdown: @convention(c) (Pointer?) -> Int32
    nonisolated(unsafe) let sslGetVerifyResult: @convention(c) (Pointer?) -> Int
    nonisolated(unsafe) let verifyErrorString: @convention(c) (Int) -> UnsafePointer<CChar>?
    nonisolated(unsafe) let errorGet: @convention(c) () -> UInt
    nonisolated(unsafe) let errorString: @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void
    nonisolated(unsafe) let errorClear: @convention(c) () -> Void

    // Constants from OpenSSL 3's public headers.
    static let verifyPeer: Int32 = 1  // SSL_VERIFY_PEER
    static let filetypePEM: Int32 = 1  // SSL_FILETYPE_PEM
    static let errorWantRead: Int32 = 2  // SSL_ERROR_WANT_READ
    static let errorWantWrite: Int32 = 3  // SSL_ERROR_WANT_WRITE
    static let errorSyscall: Int32 = 5  // SSL_ERROR_SYSCALL
    static let errorZeroReturn: Int32 = 6  // SSL_ERROR_ZERO_RETURN
    static let controlSetHostName: Int32 = 55  // SSL_CTRL_SET_TLSEXT_HOSTNAME
    static let controlMode: Int32 = 33  // SSL_CTRL_MODE
    static let controlSetMinProtocol: Int32 = 123  // SSL_CTRL_SET_MIN_PROTO_VERSION
    static let tls12: Int = 0x0303  // TLS1_2_VERSION
    /// SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER: a retried write may come from a moved buffer.
    static let modePartialMovingWrites: Int = 0x1 | 0x2
    static let optionIgnoreUnexpectedEOF: UInt64 = 1 << 7  // SSL_OP_IGNORE_UNEXPECTED_EOF

    private init(handle: UnsafeMutableRawPointer) {
        func symbol<T>(_ name: String) -> T { unsafeBitCast(dlsym(handle, name), to: T.self) }
        tlsClientMethod = symbol("TLS_client_method")
        tlsServerMethod = symbol("TLS_server_method")
        contextNew = symbol("SSL_CTX_new")
        contextFree = symbol("SSL_CTX_free")
        contextSetVerify = symbol("SSL_CTX_set_verify")
        contextSetDefaultVerifyPaths = symbol("SSL_CTX_set_default_verify_paths")
        contextLoadVerifyLocations = symbol("SSL_CTX_load_verify_locations")
        contextUseCertificateChainFile = symbol("SSL_CTX_use_certificate_chain_file")
        contextUsePrivateKeyFile = symbol("SSL_CTX_use_PrivateKey_file")
        contextControl = symbol("SSL_CTX_ctrl")
        contextSetOptions = symbol("SSL_CTX_set_options")
        sslNew = symbol("SSL_new")
        sslFree = symbol("SSL_free")
        sslSetFD = symbol("SSL_set_fd")
        sslControl = symbol("SSL_ctrl")
        sslSet1Host = symbol("SSL_set1_host")
        sslGet0Param = symbol("SSL_get0_param")
        verifyParamSet1IPASC = symbol("X509_VERIFY_PARAM_set1_ip_asc")
        sslConnect = symbol("SSL_connect")
        sslAccept = symbol("SSL_accept")
        sslRead = symbol("SSL_read")
        sslPeek = symbol("SSL_peek")
        sslHasPending = symbol("SSL_has_pending")
        sslWrite = symbol("SSL_write")
        sslGetError = symbol("SSL_get_error")
        sslShutdown = symbol("SSL_shutdown")
        sslGetVerifyResult = symbol("SSL_get_verify_result")
        verifyErrorString = symbol("X509_verify_cert_error_string")
        errorGet = symbol("ERR_get_error")
        errorString = symbol("ERR_error_string_n")
        errorClear = symbol("ERR_clear_error")
    }

    /// The C names of every function above, checked before any is taken.
    private static let symbolNames = [
        "TLS_client_method",
        "TLS_server_method",
        "SSL_CTX_new",
        "SSL_CTX_free",
        "SSL_CTX_set_verify",
        "SSL_CTX_set_default_verify_paths",
        "SSL_CTX_load_verify_locations",
        "SSL_CTX_use_certificate_chain_file",
        "SSL_CTX_use_PrivateKey_file",
        "SSL_CTX_ctrl",
        "SSL_CTX_set_options",
        "SSL_new",
        "SSL_free",
        "SSL_set_fd",
        "SSL_ctrl",
        "SSL_set1_host",
        "SSL_get0_param",
        "X509_VERIFY_PARAM_set1_ip_asc",
        "SSL_connect",
        "SSL_accept",
        "SSL_read",
        "SSL_peek",
        "SSL_has_pending",
        "SSL_write",
        "SSL_get_error",
        "SSL_shutdown",
        "SSL_get_verify_result",
        "X509_verify_cert_error_string",
        "ERR_get_error",
        "ERR_error_string_n",
        "ERR_clear_error",
    ]

    /// OpenSSL, loaded once per process; the error says why it could not be.
    package static let shared: Result<OpenSSL, TLSError> = load()

    private static func load() -> Result<OpenSSL, TLSError> {
        let names: [String] = ["libssl.so.3", "libssl.so"]
        guard let handle = names.lazy.compactMap({ name in dlopen(name, RTLD_NOW | RTLD_LOCAL) }).first else {
            return .failure(.unavailable("libssl.so.3 could not be loaded: install OpenSSL 3 (Debian/Ubuntu: libssl3)"))
        }
        let missing = symbolNames.filter { dlsym(handle, $0) == nil }
        guard missing.isEmpty else {
            return .failure(.unavailable("libssl lacks \(missing.joined(separator: ", ")): OpenSSL 3 is required"))
        }
        return .success(OpenSSL(handle: handle))
    }

    /// The text of OpenSSL's oldest queued error (and clears the queue), for messages.
    func lastErrorText() -> String {
        let code = errorGet()
        errorClear()
        guard code != 0 else { return "no OpenSSL error queued" }
        var buffer = [CChar](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { errorString(code, $0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

