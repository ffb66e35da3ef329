/// A page read from an upstream response.
extension PageWalker {
    static func load(
        _ url: PageURL, number: Int, paths: ScanPaths, fetch: PageFetcher
    ) async throws(PaginationError) -> Page {
        let response = try await fetch(url, number)
        return try page(from: response, url: url, number: number, paths: paths)
    }

    /// A fetched page's response as a page: its items and values, from the cache's stored scan or scanned now (also
    /// for an answer that reads a page with no walk: `InMemoryAnswer`).
    package static func page(
        from response: UpstreamResponse, url: PageURL, number: Int, paths: ScanPaths
    ) throws(PaginationError) -> Page {
        guard (200..<300).contains(response.status.code) else {
            throw .upstreamStatus(page: number, url: url, status: response.status.code, body: UpstreamErrorBody(response))
        }
        let scanned: ScannedPage
        var response = response
        // A page the cache scanned when it stored it (for these paths) is not scanned again.
        if let stored = response.storedScan?.page(for: paths) {
            scanned = stored
        } else {
            // A body left in its file is read to be scanned (the cache leaves one only for its own walk's paths; never an
            // empty body scanned as the page, review16 B3).
            if let inFile = response.bodyInFile {
                guard let bytes = inFile.read() else {
                    throw .cannotContinue(page: number, reason: "its cached copy changed on disk after it was checked; retry")
                }
                response.body = bytes
                response.storedFile = inFile.file
            }
            do {
                scanned = try paths.scan(response.body)
            } catch {
                throw .invalidJSON(page: number, url: url, error: error)
            }
        }
        var page = Page(
            number: number, url: url, status: response.status, headers: response.headers, body: response.body,
            items: scanned.items, values: scanned.values)
        page.storedChecksum = response.storedChecksum
        page.bodyFile = response.storedFile
        page.bodyInFile = response.bodyInFile
        if let scan = response.storedScan, scan.signature == paths.signature { page.storedIsCommaRun = scan.isCommaRun }
        return page
    }
}
