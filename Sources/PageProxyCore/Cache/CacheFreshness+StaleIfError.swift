extension CacheFreshness {
    /// How long past its freshness a page may answer when its upstream fails, if its `Cache-Control` says
    /// (`stale-if-error=N`, RFC 5861 §4); nil when it does not, or not as a number of seconds.
    package static func staleIfError(_ headers: HTTPHeaders) -> Duration? {
        guard let text = directives(headers)["stale-if-error"], let seconds = Int(text), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
