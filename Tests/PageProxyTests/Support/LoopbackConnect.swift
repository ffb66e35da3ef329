import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Connects the blocking socket `descriptor` to 127.0.0.1:`port` (for test clients that read on a thread of their
/// own); returns `connect`'s result: 0, or -1 with `errno` set.
func connectLoopback(_ descriptor: Int32, port: Int) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
