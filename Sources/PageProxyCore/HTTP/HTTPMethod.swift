/// A request method token (RFC 9110 §9). Methods are case-sensitive, so `get` is not `GET`.
package struct HTTPMethod: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    package var rawValue: String

    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package static let get = HTTPMethod(rawValue: "GET")
    package static let head = HTTPMethod(rawValue: "HEAD")
    package static let post = HTTPMethod(rawValue: "POST")
    package static let put = HTTPMethod(rawValue: "PUT")
    package static let delete = HTTPMethod(rawValue: "DELETE")
    package static let patch = HTTPMethod(rawValue: "PATCH")
    package static let options = HTTPMethod(rawValue: "OPTIONS")
    package static let trace = HTTPMethod(rawValue: "TRACE")
    package static let connect = HTTPMethod(rawValue: "CONNECT")

    package var description: String { rawValue }
}
