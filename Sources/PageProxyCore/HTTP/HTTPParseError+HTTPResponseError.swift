/// A request that could not be parsed is answered with its status and code, then the connection closes.
extension HTTPParseError: HTTPResponseError {
    package var message: String { description }
}
