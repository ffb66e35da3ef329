#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address built from a numeric literal and a port.
package struct SocketAddress: Sendable, CustomStringConvertible {
    package enum Family: Sendable { case ipv4, ipv6 }

    package let host: String
    package let port: Int
    package let family: Family

    /// Parses a numeric IPv4 (`127.0.0.1`) or IPv6 (`::1`) address; host names are resolved by `resolve`.
    package init(host: String, port: Int) throws(SocketError) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = .ipv4
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = .ipv6
        } else {
            throw .invalidAddress(host)
        }
        guard (0...65535).contains(port) else { throw .invalidAddress("\(host):\(port)") }
        self.host = host
        self.port = port
    }

    /// Resolves a host name (or literal) to its first address, preferring IPv4.
    package static func resolve(host: String, port: Int) throws(SocketError) -> SocketAddress {
        if let literal = try? SocketAddress(host: host, port: port) { return literal }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else {
            throw .invalidAddress(host)
        }
        defer { freeaddrinfo(result) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        var fallback: SocketAddress?
        while let info = candidate {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if info.pointee.ai_family == AF_INET, let address = info.pointee.ai_addr {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var raw = v4.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                }
                return try SocketAddress(host: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: port)
            }
            if info.pointee.ai_family == AF_INET6, fallback == nil, let address = info.pointee.ai_addr {
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var raw = v6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                }
                fallback = try? SocketAddress(host: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: port)
            }
            candidate = info.pointee.ai_next
        }
        guard let fallback else { throw .invalidAddress(host) }
        return fallback
    }

    package var description: String {
        family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Calls `body` with this address as a `sockaddr` pointer and its length.
    package func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// The family constant for `socket(2)`.
    package var domain: Int32 { family == .ipv4 ? AF_INET : AF_INET6 }
}
