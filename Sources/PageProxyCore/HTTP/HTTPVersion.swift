/// An HTTP protocol version, `HTTP/major.minor` (RFC 9112 §2.3).
package struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    package var major: Int
    package var minor: Int

    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    package static let http1_0 = HTTPVersion(major: 1, minor: 0)
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// The two versions served are constant strings: every answer's status line starts with one (issue 13: built by
    /// interpolation, it was a tenth of serializing a head).
    package var description: String {
        switch (major, minor) {
        case (1, 1): "HTTP/1.1"
        case (1, 0): "HTTP/1.0"
        default: "HTTP/\(major).\(minor)"
        }
    }
}
