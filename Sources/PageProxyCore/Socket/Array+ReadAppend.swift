extension Array where Element == UInt8 {
    /// Lets `read` fill up to `maxBytes` of scratch space, then appends the bytes it reports.
    ///
    /// One copy of what arrived, instead of growing the array by `maxBytes` zeros and shrinking it again: that
    /// costs a memset per read when optimized, and unoptimized (the test build) far more than the read itself.
    mutating func append<Result>(
        readingUpTo maxBytes: Int, _ read: (UnsafeMutableRawBufferPointer) -> (result: Result, count: Int)
    ) -> Result {
        withUnsafeTemporaryAllocation(byteCount: Swift.max(1, maxBytes), alignment: 1) { scratch in
            let (result, count) = read(UnsafeMutableRawBufferPointer(rebasing: scratch[..<Swift.max(0, maxBytes)]))
            if count > 0 { append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count])) }
            return result
        }
    }
}
