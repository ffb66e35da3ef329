import PageProxyCore

/// Where a response's bytes go: the client's socket in production, memory in responder tests.
package protocol ResponseSink: Sendable {
    /// Writes `parts` in order, without joining them.
    /// - Throws: `SocketError` when the client has taken nothing by `deadline` (renewed as it takes bytes) or has gone.
    nonisolated(nonsending) func write(_ parts: [[UInt8]], deadline: WriteDeadline) async throws(SocketError)

    /// Writes `slices` in order, from the arrays the caller holds (a socket sends them without copying them).
    /// - Throws: as `write(_:deadline:)`.
    nonisolated(nonsending) func write(slices: [ArraySlice<UInt8>], deadline: WriteDeadline) async throws(SocketError)

    /// Writes `parts` in order, file ranges from their files (a socket reads them into a staging buffer, never into a
    /// copy kept).
    /// - Throws: as `write(_:deadline:)`, or when a file no longer has a range's bytes.
    nonisolated(nonsending) func write(bodyParts: [ResponseBodyPart], deadline: WriteDeadline) async throws(SocketError)

    /// How many bytes the sink's writes have delivered so far, counted as they leave, when it counts them: a write that
    /// fails midway is then logged with what the client took of it (attack5 m1: `"bytes":0` for a 6.5 MB cut).
    var bytesDelivered: Int? { get }

    /// Writes what the sink takes of `parts` from `position` on without waiting (`AsyncSocket.writeNow`); moves
    /// `position` past it. Returns the bytes written and the error that ended the write, if one did.
    func writeNow(_ parts: [[UInt8]], from position: inout AsyncSocket.PartsPosition) -> (written: Int, error: SocketError?)
}

extension ResponseSink {
    /// A sink that does not count (memory in tests): a failed write is counted as nothing delivered.
    package var bytesDelivered: Int? { nil }

    /// A sink with no write that never waits (memory in tests) takes nothing now: the writer's async send writes it all.
    package func writeNow(_ parts: [[UInt8]], from position: inout AsyncSocket.PartsPosition) -> (written: Int, error: SocketError?) {
        (0, nil)
    }

    /// A sink with no gathering write of its own (memory in tests) takes the slices as arrays.
    package nonisolated(nonsending) func write(slices: [ArraySlice<UInt8>], deadline: WriteDeadline) async throws(SocketError) {
        try await write(slices.map(Array.init), deadline: deadline)
    }

    /// A sink that cannot send from a file (memory in tests) takes the ranges' bytes read back.
    package nonisolated(nonsending) func write(bodyParts: [ResponseBodyPart], deadline: WriteDeadline) async throws(SocketError) {
        var slices: [ArraySlice<UInt8>] = []
        for part in bodyParts {
            guard let bytes = part.bytes else {
                // What came before the short range is sent, then the connection closes short of its length.
                try await write(slices: slices, deadline: deadline)
                throw .failed(call: "pread", errno: 0)
            }
            slices.append(bytes)
        }
        try await write(slices: slices, deadline: deadline)
    }
}

extension AsyncSocket: ResponseSink {
    package var bytesDelivered: Int? { bytesWritten }
}
