/// Fetches a page's response; the cache, retries and the network live behind it.
package typealias PageFetcher = @Sendable (_ url: PageURL, _ pageNumber: Int) async throws(PaginationError) -> UpstreamResponse

/// Walks every page of a paginated upstream and hands them out in upstream order.
///
/// Pages whose URLs are known ahead (a total, a `last` link) are fetched up to `concurrency` at once; pages known
/// only from the one before (a next link, a cursor) one after another. The window of fetched-but-not-yet-taken
/// pages never exceeds `concurrency`, so memory is bounded by concurrency × page size, whatever the total, and a
/// consumer that stops taking pages stops the fetching. Every URL passes the walk's guards before it is requested:
/// same origin as the first page, never seen before, within the route's page limit.
package final class PageWalker {
    package struct Options: Sendable {
        package var itemsPath: JSONPath = .root
        package var concurrency = 4
        /// The route's runaway guard: needing more pages is an error. It also bounds memory: a scheme describes the
        /// pages it knows ahead (`NumberedPages`), and URLs are built only once their count is within this limit.
        package var maxPages = 1000
        /// The client's cap (`_max_pages`): the walk stops quietly after this many pages.
        package var pageLimit: Int? = nil
        /// The client's cap (`_max_items`): the walk stops quietly once this many items are out.
        package var itemLimit: Int? = nil
        package init() {}
    }

    private let strategy: any PaginationStrategy
    private let options: Options
    private let fetch: PageFetcher
    private let origin: PageURL.Origin
    private var urls: [PageURL]
    private var seen: Set<PageURL>
    private var tasks: [Int: Task<Page, any Error>] = [:]
    /// Pages fetched speculatively past the last known one (`lookahead`), in order; confirmed or discarded later.
    private var speculative: [(url: PageURL, task: Task<Page, any Error>)] = []
    private var nextToTake = 0
    private var nextToLaunch = 0
    private var isListComplete = false
    private var isFinished = false
    private var itemsTaken = 0

    /// Whether the walk stopped early at the client's page or item cap (the answer is then partial by request).
    package private(set) var wasTruncated = false

    package convenience init(base: PageURL, scheme: PaginationScheme, options: Options, fetch: @escaping PageFetcher) {
        self.init(base: base, strategy: scheme.makeStrategy(), options: options, fetch: fetch)
    }

    /// A walk with a strategy chosen by the caller (`scheme: "auto"` chooses it after the first page).
    package init(base: PageURL, strategy: any PaginationStrategy, options: Options, fetch: @escaping PageFetcher) {
        self.strategy = strategy
        self.options = options
        self.fetch = fetch
        let first = strategy.firstPage(from: base)
        self.origin = first.origin
        self.urls = [first]
        self.seen = [first]
    }

    deinit {
        tasks.values.forEach { $0.cancel() }
        speculative.forEach { $0.task.cancel() }
    }

    /// The next page in upstream order, nil after the last; the first error ends the walk and cancels the rest.
    package func next() async throws(PaginationError) -> Page? {
        guard !isFinished, nextToTake < urls.count else { return nil }
        // A cancelled walk (its client left) ends here: a fetch that ignores cancellation may still deliver its
        // page, and the walk must not go on to launch the next ones.
        guard !Task.isCancelled else {
            finish()
            throw .upstreamFailed(page: nextToTake + 1, url: urls[nextToTake], error: .connectionLost(origin: origin.description, reason: "cancelled"))
        }
        launchWindow()
        guard let task = tasks.removeValue(forKey: nextToTake) else { return nil }
        let inFlight = Array(tasks.values) + speculative.map(\.task) + [task]
        var page: Page
        do {
            page = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                inFlight.forEach { $0.cancel() }
            }
        } catch {
            finish()
            if let error = error as? PaginationError { throw error }
            throw .upstreamFailed(page: nextToTake + 1, url: urls[nextToTake], error: .connectionLost(origin: origin.description, reason: "cancelled"))
        }
        nextToTake += 1
        do {
            if nextToTake == urls.count && !isListComplete {
                try append(strategy.next(after: page), after: page)
            } else if isListComplete {
                try checkOrigin(ofLinksOn: page)
            }
        } catch {
            finish()
            throw error
        }
        if let limit = options.itemLimit, itemsTaken + page.itemCount >= limit {
            let keep = limit - itemsTaken
            let hadMore = page.itemCount > keep || nextToTake < urls.count || !isListComplete
            page.truncateItems(to: keep)
            wasTruncated = wasTruncated || hadMore
            finish()
        }
        itemsTaken += page.itemCount
        launchWindow()
        return page
    }

    /// Stops the walk and cancels every fetch in flight.
    package func finish() {
        isFinished = true
        tasks.values.forEach { $0.cancel() }
        tasks = [:]
        discardSpeculation()
    }

    private func discardSpeculation() {
        speculative.forEach { $0.task.cancel() }
        speculative = []
    }

    private func append(_ next: NextPages, after page: Page) throws(PaginationError) {
        let count: Int
        let urlAt: (Int) -> PageURL
        switch next {
        case .none:
            isListComplete = true
            discardSpeculation()
            return
        case .one(let url):
            count = 1
            urlAt = { _ in url }
        case .all(let pages):
            count = pages.count
            urlAt = pages.url(at:)
            isListComplete = true
        }
        // Both caps are checked on the count, before any URL is built: an upstream may claim 10^18 pages.
        var kept = count
        if let limit = options.pageLimit, count > Self.room(below: limit, used: urls.count) {
            kept = Self.room(below: limit, used: urls.count)
            isListComplete = true
            wasTruncated = true
        }
        guard kept <= Self.room(below: options.maxPages, used: urls.count) else { throw .tooManyPages(limit: options.maxPages) }
        let found = (0..<kept).map(urlAt)
        for (offset, url) in found.enumerated() {
            let number = urls.count + offset + 1
            // DESIGN.md: a next link elsewhere is an error, never a request (SSRF).
            guard url.origin == origin else {
                throw .foreignOrigin(page: page.number, refused: url.origin.description, allowed: origin.description)
            }
            guard !seen.contains(url) else { throw .loop(page: number, url: url) }
            seen.insert(url)
        }
        // Speculative fetches that guessed right become the real ones; the rest are cancelled.
        for url in found {
            if let guess = speculative.first, guess.url.isSamePage(as: url), nextToLaunch == urls.count {
                tasks[urls.count] = guess.task
                nextToLaunch += 1
                speculative.removeFirst()
            } else {
                discardSpeculation()
            }
            urls.append(url)
        }
        if isListComplete { discardSpeculation() }
    }

    /// Once every page is known (a total, a `last` link), the walk fetches the URLs the scheme described and follows
    /// no later link: their count is fixed and within `maxPages`, so a loop among later links cannot make it run on.
    /// A later link to another origin still ends the walk, as it would in a walk that follows links (DESIGN.md: a
    /// link elsewhere is an error, never a request). Only the origin is compared: GitHub's next links name
    /// `/repositories/<id>/…` while the numbered URLs keep the path of the first link.
    private func checkOrigin(ofLinksOn page: Page) throws(PaginationError) {
        let linked: PageURL? = switch try? strategy.next(after: page) {
        case .one(let url)?: url
        case .all(let pages)?: pages.template
        case NextPages.none?, nil: nil
        }
        guard let linked, linked.origin != origin else { return }
        throw .foreignOrigin(page: page.number, refused: linked.origin.description, allowed: origin.description)
    }

    /// How many more pages fit under `limit` when `used` are taken; never negative, never overflowing.
    private static func room(below limit: Int, used: Int) -> Int {
        limit > used ? limit - used : 0
    }

    /// One past the last page the concurrency window allows, saturating for a huge `concurrency`.
    private var windowEnd: Int {
        let (end, overflow) = nextToTake.addingReportingOverflow(max(1, options.concurrency))
        return overflow ? Int.max : end
    }

    private func launchWindow() {
        guard !isFinished else { return }
        let end = min(urls.count, windowEnd)
        while nextToLaunch < end {
            let index = nextToLaunch
            let url = urls[index]
            let fetch = self.fetch
            let itemsPath = options.itemsPath
            let valuePaths = strategy.valuePaths
            tasks[index] = Self.makeFetchTask(url, number: index + 1, itemsPath: itemsPath, valuePaths: valuePaths, fetch: fetch)
            nextToLaunch += 1
        }
        launchSpeculation(windowEnd: windowEnd)
    }

    /// With no total known, fetches up to `lookahead` guessed pages past the last known one, within the window.
    private func launchSpeculation(windowEnd: Int) {
        let lookahead = strategy.lookahead
        guard lookahead > 0, !isListComplete, nextToLaunch == urls.count else { return }
        let limit = min(options.maxPages, options.pageLimit ?? Int.max)
        while speculative.count < lookahead, urls.count + speculative.count < min(windowEnd, limit) {
            guard let previous = speculative.last?.url ?? urls.last, let guess = strategy.guessNext(after: previous),
                guess.origin == origin, !seen.contains(guess)
            else { return }
            let number = urls.count + speculative.count + 1
            let task = Self.makeFetchTask(guess, number: number, itemsPath: options.itemsPath, valuePaths: strategy.valuePaths, fetch: fetch)
            speculative.append((guess, task))
        }
    }

    private static func makeFetchTask(
        _ url: PageURL, number: Int, itemsPath: JSONPath, valuePaths: [JSONPath], fetch: @escaping PageFetcher
    ) -> Task<Page, any Error> {
        Task {
            try await load(url, number: number, itemsPath: itemsPath, valuePaths: valuePaths, fetch: fetch)
        }
    }

    private static func load(
        _ url: PageURL, number: Int, itemsPath: JSONPath, valuePaths: [JSONPath], fetch: PageFetcher
    ) async throws(PaginationError) -> Page {
        let response = try await fetch(url, number)
        guard (200..<300).contains(response.status.code) else {
            throw .upstreamStatus(page: number, url: url, status: response.status.code)
        }
        let scanned: ScannedPage
        do {
            scanned = try JSONScanner().scan(response.body, itemsAt: itemsPath, values: valuePaths)
        } catch {
            throw .invalidJSON(page: number, url: url, error: error)
        }
        return Page(
            number: number, url: url, status: response.status, headers: response.headers, body: response.body,
            items: scanned.items, values: scanned.values)
    }
}
