import Dispatch

/// A connection that HTTP/1.1 messages to an upstream travel over: a plain socket, or TLS on one.
package protocol UpstreamConnection: AnyObject, Sendable {
    /// Appends what arrives next (up to `maxBytes`) to `buffer`; returns the count, 0 at the end of the stream.
    func read(into buffer: inout [UInt8], maxBytes: Int, deadline: DispatchTime?) async throws(SocketError) -> Int
    /// Writes every byte.
    func write(_ bytes: [UInt8], deadline: DispatchTime?) async throws(SocketError)
    /// Closes the connection; a task waiting on it wakes with `.cancelled`.
    func close()
}

extension AsyncSocket: UpstreamConnection {}
extension TLSStream: UpstreamConnection {}
