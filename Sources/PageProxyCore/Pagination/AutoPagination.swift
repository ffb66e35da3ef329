import Synchronization

/// Starts a walk whose pagination is detected from the first page (`scheme: "auto"`).
///
/// The first page is fetched here, `SchemeDetector` reads it, and the walker it returns is handed that same
/// response for its page 1, so the first page is fetched once. A first page that is not a 2xx is not inspected:
/// the walker meets it as it meets any page, so the route's answer to an upstream error is the usual one.
package enum AutoPagination {
    /// The walker over `base` with the detected scheme and items path, and what was detected (nil when the first
    /// page was not a 2xx answer).
    /// - Parameter itemsPath: the route's own items path, when it names one.
    package static func start(
        base: PageURL, itemsPath: JSONPath?, options: PageWalker.Options, fetch: @escaping PageFetcher
    ) async throws(PaginationError) -> (walker: PageWalker, detected: DetectedPagination?) {
        // A client that leaves while the first page is fetched cancels the walk, as on any route (attack14 H2: an
        // abandoned request ran every retry and held its connection slot for the whole timeout).
        options.beforeWaiting?()
        let first = try await fetch(base, 1)
        let replay = FirstPageReplay(first)
        let replaying: PageFetcher = { url, number throws(PaginationError) in
            if number == 1, let response = replay.take() { return response }
            return try await fetch(url, number)
        }
        var options = options
        guard (200..<300).contains(first.status.code) else {
            options.itemsPath = itemsPath ?? .root
            return (PageWalker(base: base, strategy: SinglePageStrategy(), options: options, fetch: replaying), nil)
        }
        let detected = try SchemeDetector.detect(first, url: base, itemsPath: itemsPath)
        options.itemsPath = detected.itemsPath
        let strategy = detected.scheme?.makeStrategy() ?? SinglePageStrategy()
        return (PageWalker(base: base, strategy: strategy, options: options, fetch: replaying), detected)
    }
}

/// The first page's response, handed out once.
private final class FirstPageReplay: Sendable {
    private let response: Mutex<UpstreamResponse?>

    init(_ response: UpstreamResponse) {
        self.response = Mutex(response)
    }

    func take() -> UpstreamResponse? {
        response.withLock { response in
            defer { response = nil }
            return response
        }
    }
}
