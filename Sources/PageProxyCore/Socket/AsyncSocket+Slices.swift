extension AsyncSocket {
    /// Writes every byte of `slices` in order, in as few system calls as the kernel allows (one when it takes them
    /// all), waiting while the peer's window is full; throws `.timedOut` at the deadline.
    ///
    /// For bytes the caller holds in arrays of its own (a merged answer of one cached page: the head, `[`, the
    /// entry's items, `]`): they are sent from where they are, never joined or copied (issue 13). The slices keep
    /// their arrays alive.
    package func write(slices: [ArraySlice<UInt8>], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        var remaining = slices.filter { !$0.isEmpty }[...]
        while !remaining.isEmpty {
            let batch = remaining.prefix(Self.maxGatheredParts)
            let result = withOpenDescriptor { _ in
                Self.withBuffers(of: batch) { buffers in
                    Result { () throws(SocketError) -> Int? in try socket.write(gathering: buffers) }
                }
            }
            guard let result else { throw .cancelled }
            guard var written = try result.get() else {
                try await waitUntilWritable(deadline: deadline)
                continue
            }
            // What the kernel took leaves the front: whole slices, then the part of one it took.
            while written > 0, let first = remaining.first {
                guard written >= first.count else {
                    remaining[remaining.startIndex] = first.dropFirst(written)
                    break
                }
                written -= first.count
                remaining = remaining.dropFirst()
            }
        }
    }

    /// Calls `body` with the bytes of every slice, in order.
    private static func withBuffers<T>(of slices: ArraySlice<ArraySlice<UInt8>>, _ body: ([UnsafeRawBufferPointer]) -> T) -> T {
        var buffers: [UnsafeRawBufferPointer] = []
        buffers.reserveCapacity(slices.count)
        return nest(slices, into: &buffers, body)
    }

    /// Each slice's bytes are valid only inside its own `withUnsafeBytes`, so the scopes nest, one level a slice.
    private static func nest<T>(
        _ slices: ArraySlice<ArraySlice<UInt8>>, into buffers: inout [UnsafeRawBufferPointer], _ body: ([UnsafeRawBufferPointer]) -> T
    ) -> T {
        guard let first = slices.first else { return body(buffers) }
        return first.withUnsafeBytes { raw in
            buffers.append(raw)
            return nest(slices.dropFirst(), into: &buffers, body)
        }
    }
}
