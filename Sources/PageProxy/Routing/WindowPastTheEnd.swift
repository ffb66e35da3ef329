import PageProxyCore

/// A window whose walk jumped to a page past the upstream's last one gets `[]`, never an error (DESIGN.md "Callers
/// may also ask for less"): DRF, Rails and Laravel answer such a page 404, which on a walk's first page would
/// otherwise be the client's error. Only the jumped-to page is concerned; the page cache keeps the real answer.
enum WindowPastTheEnd {
    /// `fetch`, with an end status on the first page answered as an empty page; `fetch` itself when nothing can end.
    static func wrap(_ fetch: @escaping PageFetcher, endStatuses: Set<Int>, itemsPath: JSONPath) -> PageFetcher {
        guard !endStatuses.isEmpty, let empty = ItemWindow.Plan.emptyPage(itemsPath: itemsPath) else { return fetch }
        return { url, number throws(PaginationError) in
            let response = try await fetch(url, number)
            guard number == 1, endStatuses.contains(response.status.code) else { return response }
            return UpstreamResponse(status: .ok, headers: HTTPHeaders(), body: empty)
        }
    }
}
