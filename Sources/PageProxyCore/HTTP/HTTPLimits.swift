/// Size limits the request parser enforces before buffering more of a request.
package struct HTTPLimits: Sendable {
    /// Longest request line, not counting its line ending; longer gets 414.
    package var maxRequestLineBytes: Int
    /// Sum of all header field lines (and, separately, of all trailer lines), not counting line endings; more gets 431.
    package var maxHeaderBytes: Int
    /// Most header fields (and trailer fields); more gets 431.
    package var maxHeaderCount: Int
    /// Largest request body (decoded chunk data for chunked bodies); larger gets 413.
    package var maxRequestBodyBytes: Int

    package init(
        maxRequestLineBytes: Int = 8192,
        maxHeaderBytes: Int = 32768,
        maxHeaderCount: Int = 100,
        maxRequestBodyBytes: Int = 1 << 20
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxRequestBodyBytes = maxRequestBodyBytes
    }
}
