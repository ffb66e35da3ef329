import PageProxyCore
import Synchronization

/// What one request for a route asks for, read from the request and the route before any page is fetched: the
/// controls, the headers sent upstream, the first page's URL, the walk's options, the cache policy and the memo key.
struct RequestPlan {
    /// Everything planned, shared by every request with this plan: a copy of the plan is one retain, and the request.
    private let decided: Decisions
    /// What is sent upstream: the plan's own when no field of the client's is forwarded, else this request's.
    private let sent: Sent
    /// The request answered: the one planned, or a later one with the same plan (`RequestPlanCache`).
    private(set) var request: HTTPRequestHead
    /// Every page of the walk is revalidated, whatever the request said (`revalidatingEveryPage`).
    private var revalidatesEveryPage = false
    /// This plan is a window walked again in this very request (`walkingWindowAgain`): walked again once more, it is
    /// counted by no size (an upstream whose cap moves at every request, or a list that ends within a served page).
    private var isWindowWalkedAgain = false
    /// This plan is walked again on new connections in this very request (`walkingAgainOnNewConnections`): not once more.
    private var isWalkedAgainOnNewConnections = false

    /// - Throws: `ProxyControls.Invalid`, `PaginationQueryCheck.Refused` or `UpstreamHeaders.Refused`, all
    ///   `HTTPResponseError`s (400).
    /// - Parameter windowServed: a window is walked again, its pages counted by what the upstream served a page (after
    ///   its first page did not hold what the size asked said: `walkingWindowAgain`).
    ///   `windowFromStart`: walked again from the first page, whatever the scheme (`ItemWindow.walkingAgain`).
    init(
        request: HTTPRequestHead, route: RouteConfig, subpath: String, lookahead: LookaheadMemory, morePathWarnings: MorePathWarnings = .silent,
        windowServed: Int? = nil, windowFromStart: Bool = false, windowStepBack: Bool = false, windowUnchecked: Bool = false
    ) throws {
        let upstreamHeaders = try UpstreamHeaders.make(route: route, request: request)
        decided = try Decisions(
            request: request, route: route, subpath: subpath, upstreamHeaders: upstreamHeaders, lookahead: lookahead,
            morePathWarnings: morePathWarnings, windowServed: windowServed, windowFromStart: windowFromStart, windowStepBack: windowStepBack,
            windowUnchecked: windowUnchecked)
        sent = decided.shared ?? Sent(upstreamHeaders, route: route, query: decided.base.query, keys: decided.pageKeyTable)
        self.request = request
    }

    /// What `RequestPlanCache` keeps of a plan: the decisions, with no field of any request's (loose12: the kept plan
    /// held the request it was made for, every field of it, and the credentials it forwarded, until pushed out).
    struct Kept: Sendable {
        fileprivate let decided: Decisions
    }

    var kept: Kept { Kept(decided: decided) }

    /// The kept plan answering `request`, which `RequestPlanCache` found to have the same target and deciding fields:
    /// what it sends upstream is read from `request` again when it forwards a field of the client's (the same
    /// bytes: the fields are in the cache's key). Nil when they cannot be forwarded (never, as the key is the same).
    init?(_ kept: Kept, answering request: HTTPRequestHead) {
        decided = kept.decided
        if let shared = decided.shared {
            sent = shared
        } else {
            guard let headers = try? UpstreamHeaders.make(route: decided.route, request: request) else { return nil }
            sent = Sent(headers, route: decided.route, query: decided.base.query, keys: decided.pageKeyTable)
        }
        self.request = request
    }

    var route: RouteConfig { decided.route }
    var controls: ProxyControls { decided.controls }
    var upstreamHeaders: HTTPHeaders { sent.upstreamHeaders }
    var base: PageURL { decided.base }
    var fixedScheme: PaginationScheme? { decided.fixedScheme }
    var window: ItemWindow.Plan? { decided.window }
    var options: PageWalker.Options { decided.options }
    var scanPaths: ScanPaths? { decided.scanPaths }
    var cachePolicy: CachePolicy {
        guard revalidatesEveryPage else { return decided.cachePolicy }
        var policy = decided.cachePolicy
        policy.forceRevalidate = true
        return policy
    }
    var memoKey: String? { decided.memoKey }
    /// For NDJSON, the memo's key of the merged answer of the very same items (nineteenth pass): one read from its
    /// entry, which knows where its items are split, answers it too; nil for a merged answer, and for a window (whose
    /// `Link` is built from the query as written).
    var linesKey: String? { decided.linesKey }
    /// Worked out at its first use (a memo kept in the cache directory), not with the plan: with the memo off nothing
    /// asks for it, and its first making after a restart cost the first request ~1 ms before its walk (issue 13,
    /// seventeenth pass: the route's fingerprint's first descriptions look conformances up in the runtime).
    var answerKey: CacheKey? { decided.answerKey }
    /// Whether `answerKey` has been worked out for this plan's decisions (tests).
    var hasMadeAnswerKey: Bool { decided.answerKeyMade.withLock { $0 != nil } }
    var secrets: [String] { sent.secrets }
    var isPrivate: Bool { decided.isPrivate }
    var vary: String { decided.vary }
    var firstPageKey: CacheKey? { decided.firstPageKey }
    var pageKeys: CacheKeyPages { sent.pageKeys }
    var strategy: (any PaginationStrategy)? { decided.strategy }
    var itemCap: Int? { decided.itemCap }

    /// The plan again, walked with every page revalidated (as `_fresh` does): for a walk whose pages stated two ends of
    /// the list while one came from the cache (`PageWalker.foundListChanged`, review17 B5); nil when this plan's walk
    /// revalidated every page already.
    func revalidatingEveryPage() -> RequestPlan? {
        guard !cachePolicy.forceRevalidate else { return nil }
        var plan = self
        plan.revalidatesEveryPage = true
        return plan
    }

    /// Whether a walk of this plan that failed with `error`, having counted its pages in `tally`, is walked again
    /// revalidating every page (`revalidatingEveryPage`) rather than answered with the error: its pages stated two
    /// ends of the list, and one came from the cache unasked (a hit, or stale), so the two may be two versions met
    /// there rather than a list that changes under the walk.
    func walksAgainRevalidating(after error: any Error, tally: CacheTally) -> Bool {
        guard (error as? PaginationError)?.isListChange == true, !cachePolicy.forceRevalidate else { return false }
        return tally.count(.hit) + tally.count(.stale) > 0
    }

    /// Whether a walk of this plan that failed with `error` is walked again on new connections
    /// (`walkingAgainOnNewConnections`) rather than answered with it: a page came over a reused connection of an origin
    /// caught sending a stray response during the walk (`UpstreamError.strayResponse`, stray19). Its suspect pages have
    /// left the cache, and the origin's connections are not reused any more: the next walk reads none so. Once a request.
    func walksAgainOnNewConnections(after error: any Error) -> Bool {
        guard !isWalkedAgainOnNewConnections, case .upstreamFailed(_, _, .strayResponse)? = error as? PaginationError else { return false }
        return true
    }

    /// This plan, walked again after `walksAgainOnNewConnections`; nil once it was.
    func walkingAgainOnNewConnections() -> RequestPlan? {
        guard !isWalkedAgainOnNewConnections else { return nil }
        var plan = self
        plan.isWalkedAgainOnNewConnections = true
        return plan
    }

    /// The plan again with its window walked again (`ItemWindow.walkingAgain`), its pages counted by `served`, what the
    /// upstream served a page: for a walk whose first page did not hold what the size the window counted by said
    /// (`PageWalker.missedWindowPageSize`). Nil when the window counted by no size. The plan remembers it: its later
    /// requests walk so at once (`rememberedWindowFallback`), and share that walk's memoized answer.
    /// A plan walked again this way checks its first page against `served` in turn: an upstream whose cap shrank since
    /// makes a later request walk again by the new size (retest15 N3), the plan remembering that one in its turn.
    /// `fromStart`: the walk met an upstream that filters its pages after cutting them (`PageWalker.windowMetFilter`),
    /// which a walk from a window's offset cannot index by the merged answer's items: walked from the first page, even
    /// by a plan walked again already (which started at the window's offset; a walk from the first page never meets
    /// this, so it is walked again once more at most).
    /// A plan walked again already whose first page missed `served` in its turn (retest19 F2: a window just past a capped
    /// list's end, asked from a page that held its last few items; a 500 once it declined again) is walked once more
    /// unchecked (`ItemWindow.walkingAgain`'s `unchecked`), which counts by no size: no walk of it misses, so no more.
    func walkingWindowAgain(served: Int, fromStart: Bool = false, stepBack: Bool = false) -> RequestPlan? {
        // (A window walked again unchecked counts by no size, but jumped: met by the filter, it is walked from the start.)
        guard window?.pageSize != nil || (fromStart && window?.jumped == true),
            var again = try? RequestPlan(
                request: request, route: route, subpath: decided.subpath, lookahead: decided.lookahead,
                morePathWarnings: decided.morePathWarnings, windowServed: max(1, served),
                windowFromStart: fromStart, windowStepBack: stepBack, windowUnchecked: isWindowWalkedAgain && !fromStart)
        else { return nil }
        decided.windowFallback.withLock { $0 = again.kept }
        again.isWindowWalkedAgain = true
        return again
    }

    /// After a request of this plan walked its window again (`walkingWindowAgain`), the plan to walk its later
    /// requests with (its decisions made once, then, not once a request); nil before.
    var rememberedWindowFallback: RequestPlan? {
        guard let kept = decided.windowFallback.withLock({ $0 }) else { return nil }
        return RequestPlan(kept, answering: request)
    }

    /// Whether a walk of this plan is tried on the socket loop now (`AggregateResponder.walkFromMemory`): not for the
    /// next `skipsAfterDecline` requests after one declined, since its pages were not all in memory (a 1 MB walk would
    /// read its first pages twice each time).
    func triesWalkInMemory() -> Bool {
        guard decided.walksInMemoryToSkip.load(ordering: .relaxed) > 0 else { return true }
        decided.walksInMemoryToSkip.subtract(1, ordering: .relaxed)
        return false
    }

    /// A walk of this plan on the socket loop declined: the next few go to the pool at once.
    func walkInMemoryDeclined() {
        decided.walksInMemoryToSkip.store(Self.skipsAfterDecline, ordering: .relaxed)
    }

    /// The merged answer of this plan's one page as last worked out (`InMemoryAnswer`), for the stored version it names;
    /// nil before.
    var preparedOnePage: PreparedOnePageAnswer? { decided.preparedOnePage.withLock { $0 } }

    /// Keeps `prepared` for this plan's later requests, in place of the one before (a plan's page has one version at a time).
    func keepPreparedOnePage(_ prepared: PreparedOnePageAnswer) {
        decided.preparedOnePage.withLock { $0 = prepared }
    }

    /// How many requests of a plan skip the walk on the socket loop after one declined.
    static let skipsAfterDecline = 32

    /// What one request sends upstream: the headers every page request carries (`UpstreamHeaders`), the credentials
    /// among them never to be quoted back, and the page keys they make, over the plan's table.
    fileprivate final class Sent: Sendable {
        let upstreamHeaders: HTTPHeaders
        let secrets: [String]
        let pageKeys: CacheKeyPages

        /// - Parameter query: the first page's query, the route's and the client's merged (attack16 L1: a client's own
        ///   `access_token` was quoted back from an upstream's error body while `upstream_url` beside it was redacted).
        init(_ upstreamHeaders: HTTPHeaders, route: RouteConfig, query: String?, keys: CacheKeyPages.Table) {
            self.upstreamHeaders = upstreamHeaders
            secrets = CredentialRedaction.secrets(in: upstreamHeaders, query: query)
            pageKeys = CacheKeyPages(template: CacheKeyTemplate(headers: upstreamHeaders, caFile: route.caFile), table: keys)
        }
    }

    /// What planning decided for a request; see the plan's properties of the same names. Nothing here holds a field
    /// of the client's as sent: the headers are kept only in `shared`, when none of them is the client's, and
    /// otherwise only as digests (`firstPageKey`, `memoKey`).
    fileprivate final class Decisions: Sendable {
        let route: RouteConfig
        let controls: ProxyControls
        /// What every request of this plan sends upstream, when the client sent no field the route forwards; nil
        /// when it did: each request sends its own (`RequestPlan.init(_:answering:)`).
        let shared: Sent?
        /// The first page's URL: the route's, with the extra path appended and the client's query merged in (for a
        /// window on a numbered scheme, the page that holds its first item).
        let base: PageURL
        /// The route's own scheme; nil for `scheme: "auto"`.
        let fixedScheme: PaginationScheme?
        /// How a window (`_offset` / `_limit`) is walked: where to start, how many pages and items; nil without one.
        let window: ItemWindow.Plan?
        let options: PageWalker.Options
        /// What a walk of the route scans pages for, so that pages it stores keep their scan and hits reuse it; nil for
        /// an auto route, whose paths are known only once its first page is read (its pages are scanned by the walker).
        let scanPaths: ScanPaths?
        let cachePolicy: CachePolicy
        /// The key of the merged answer in the memo; nil for NDJSON, which is never memoized.
        let memoKey: String?
        /// For NDJSON, the key its merged answer would have (`RequestPlan.linesKey`).
        let linesKey: String?
        /// The digest of what the key of the memo's answer kept in the cache directory is made from
        /// (`AnswerEntryKey.make`'s input: digested, as it holds the headers sent upstream); nil with `memoKey` and
        /// `linesKey`.
        let answerInputDigest: String?
        /// `answerKey` once worked out.
        let answerKeyMade = Mutex<CacheKey??>(nil)
        /// The key of the memo's answer kept in the cache directory (`PersistedMergedAnswers`); nil with `memoKey`.
        var answerKey: CacheKey? {
            guard let answerInputDigest else { return nil }
            if let made = answerKeyMade.withLock({ $0 }) { return made }
            let made = AnswerEntryKey.make(route: route, inputDigest: answerInputDigest)
            answerKeyMade.withLock { $0 = made }
            return made
        }
        /// Whether the client sent a field the route forwards: only a private cache may keep the answer.
        let isPrivate: Bool
        /// The route's `Vary` value (`AnswerFreshness`).
        let vary: String
        /// `etagShape(itemsPath: nil)`.
        let routeETagShape: String
        /// The page cache's key of the first page (`options.firstPage`), nil for an auto route.
        let firstPageKey: CacheKey?
        /// The page cache's keys of the pages walks of this plan asked for, kept for the next walk (issue 13).
        let pageKeyTable: CacheKeyPages.Table
        /// The route's own scheme's strategy, for every walk with this plan (issue 13: made for each walk, it was an
        /// allocation a request); nil for an auto route. Strategies are rules, with no state of a walk.
        let strategy: (any PaginationStrategy)?
        /// How many more requests go to the pool without trying a walk on the socket loop (`triesWalkInMemory`).
        let walksInMemoryToSkip = Atomic(0)
        /// `RequestPlan.preparedOnePage`: a few hundred bytes (fields and a tag), no byte of the page; bounded with the
        /// plans (`RequestPlanCache`).
        let preparedOnePage = Mutex<PreparedOnePageAnswer?>(nil)

        /// - Throws: `ProxyControls.Invalid`, `PaginationQueryCheck.Refused`, `QueryMembers.Invalid` or
        ///   `UpstreamHeaders.Refused`, all `HTTPResponseError`s (400).
        /// The route's extra path and the walks' link memory, for `walkingWindowAgain`.
        let subpath: String
        let lookahead: LookaheadMemory
        let morePathWarnings: MorePathWarnings
        /// The decisions of this plan's window walked again (`walkingWindowAgain`), counting its pages by what the
        /// upstream served a page; nil until a walk of it needed that.
        let windowFallback = Mutex<Kept?>(nil)
        /// The answer's own cap on items: `_max_items` or the route's `maxItems`, the smaller.
        let itemCap: Int?

        /// Whether an offset list was seen filtered after its pages were cut (`FilteringLists`), or its route says so
        /// (`filteredPages`).
        private static func isFiltered(_ base: PageURL, scheme: PaginationScheme?, lookahead: LookaheadMemory) -> Bool {
            guard case .offset(let options)? = scheme else { return false }
            return options.filteredPages || lookahead.filteringLists.isFiltered(base, positions: [options.offsetParameter, options.limitParameter])
        }

        init(
            request: HTTPRequestHead, route: RouteConfig, subpath: String, upstreamHeaders: HTTPHeaders, lookahead: LookaheadMemory,
            morePathWarnings: MorePathWarnings, windowServed: Int?, windowFromStart: Bool, windowStepBack: Bool, windowUnchecked: Bool
        ) throws {
            self.route = route
            self.subpath = subpath
            self.lookahead = lookahead
            self.morePathWarnings = morePathWarnings
            controls = try ProxyControls.parse(request)
            // A window walks only the pages it needs: a numbered scheme starts at the page that holds its first item.
            let fixedScheme: PaginationScheme? = if case .scheme(let scheme) = route.pagination { scheme } else { nil }
            self.fixedScheme = fixedScheme
            // A route whose parameters are members of a Rison or JSON `q` walks them lifted out of it (`QueryMembers`).
            let asSent = RequestPlan.upstreamURL(route: route, subpath: subpath, query: controls.upstreamQuery)
            let routeBase = try route.queryMembers?.lifting(asSent) ?? asSent
            try PaginationQueryCheck.check(routeBase, pagination: route.pagination, routeQuery: route.upstream.query)
            let asked = controls.window
            let window: ItemWindow.Plan? =
                if let windowServed { asked?.walkingAgain(
                    scheme: fixedScheme, base: routeBase, served: windowServed,
                    fromStart: windowFromStart || Self.isFiltered(routeBase, scheme: fixedScheme, lookahead: lookahead), stepBack: windowStepBack,
                    unchecked: windowUnchecked) } else {
                    // A list a walk showed filtered (`FilteringLists`): an offset counts items the answer never holds, so
                    // a window walks from the first page at once, not after a walk that jumped failed (filtwin21).
                    Self.isFiltered(routeBase, scheme: fixedScheme, lookahead: lookahead)
                        ? asked?.walkingAgain(scheme: fixedScheme, base: routeBase, served: 1, fromStart: true)
                        : asked?.plan(scheme: fixedScheme, base: routeBase)
                }
            self.window = window
            base = window?.base ?? routeBase
            var options = PageWalker.Options()
            options.itemsPath = route.itemsPath
            options.concurrency = route.concurrency
            options.maxPages = route.maxPages
            // The client's `_max_pages` counts from the window's own page, not the page before it a walk steps back to.
            let clientPages = controls.maxPages
            options.pageLimit = window.map { $0.pageLimit(answering: clientPages) } ?? clientPages
            // A window walked from where the walk starts: a filter the walk shows leaves pages counted by a size fewer
            // of its items, and only the client's `_max_pages` cuts it then. One that jumped fails there (filtwin21).
            if let window, window.firstItem == 0 {
                (options.pageLimitOnceFiltered, options.windowFromWalkStart) = (window.walkPages(answering: clientPages), true)
            }
            options.windowFirstItem = window?.firstItem ?? 0
            // `_max_items` and the route's `maxItems` cap the answer's items: a window's own, past those it skips.
            let itemCap = [controls.maxItems, route.maxItems].compactMap { $0 }.min()
            self.itemCap = itemCap
            options.itemLimit = window.map { $0.itemLimit(answering: itemCap) } ?? itemCap
            options.windowCheck = window?.firstPageCheck
            options.servedPageSize = window?.servedSize
            options.lookaheadMemory = lookahead
            // What each walk would work out from the scheme, worked out once for every request with this plan.
            // A route's `morePath` is watched on each page: one with no flag there is told to the log (`MorePathWarnings`).
            let strategy = fixedScheme.map { morePathWarnings.watching($0.makeStrategy(), of: $0, route: route.name) }
            self.strategy = strategy
            let scanPaths = strategy.map { ScanPaths(itemsPath: route.itemsPath, valuePaths: $0.valuePaths) }
            self.scanPaths = scanPaths
            options.scanPaths = scanPaths
            options.firstPage = strategy?.firstPage(from: base)
            self.options = options
            let headers = upstreamHeaders
            firstPageKey = options.firstPage.map { CacheKey(UpstreamRequest(url: $0, headers: headers, caFile: route.caFile)) }
            // The keys of the plan's pages, kept for its next walks; the headers' part of every key is built once a
            // plan (issue 13, seventh pass), or once a request when they hold the client's fields.
            pageKeyTable = CacheKeyPages.Table(capacity: route.maxPages)
            // A merged answer holds its pages until it is sent: the entries it reads are kept from their first hit.
            var policy = controls.cacheDirectives.applied(
                to: CachePolicy(
                    ttl: route.ttl, staleIfError: route.staleIfError, forceRevalidate: controls.fresh, keepsFirstRead: controls.format == .json,
                    maxBodyBytes: route.maxPageBytes))
            // A merged answer that sends each page's items as they are, of a scheme that reads nothing from a page's body
            // (PageProxy numbers the pages): its pages' bodies may be checked in their files and left there (issue 13,
            // fourteenth pass; only where the store holds files, `cache.sendFromFiles`). `_fields`, `_explain` and NDJSON
            // read the bodies.
            if controls.format == .json, controls.fields == nil, !controls.explain, let strategy, !strategy.followsUpstream, let scanPaths {
                policy.leavesBodiesFor = scanPaths.signature
            }
            cachePolicy = policy
            // The window's skip and the fields decide the bytes too: they are part of the key. A window's answer also
            // says things a capped walk of the same pages does not (`Link` rel=next built from the query as written,
            // no `PageProxy-Truncated` at its own end), and its first page is checked (review17 B9): it is kept under its
            // query as written (review20 F1: `?_max_items=10` answered `?_offset=0&_limit=10` without its `next`; F2: a
            // `_fresh=1` window's `Link` was replayed to every later client).
            if (controls.format == .json || window == nil) && !controls.cacheDirectives.bypassesMemo {
                let input = MergedAnswerMemo.keyInput(
                    base: base, pageLimit: options.pageLimit, itemLimit: options.itemLimit, upstreamHeaders: upstreamHeaders)
                let shape = "\u{0}\(window?.skip ?? 0)\u{0}\(controls.fields?.description ?? "")"
                    + (window == nil ? "" : "\u{0}window\u{0}\(request.query ?? "")")
                let key = MergedAnswerMemo.key(route: route.name, input: input) + shape
                (memoKey, linesKey) = controls.format == .json ? (key, nil) : (nil, key)
                // Not kept on disk when the client's query holds a value the log would redact (an `access_token`, a
                // `client_secret`, a `sig`): its entry would hold it as written, in a window's `Link` (attack17 L1).
                // Memoized in memory all the same; after a restart the walk answers it from the pages.
                let holdsSecret = request.query.map { CredentialRedaction.redactQuery($0) != $0 } ?? false
                answerInputDigest = holdsSecret ? nil : AnswerEntryKey.digest(input + shape)
            } else {
                (memoKey, linesKey, answerInputDigest) = (nil, nil, nil)
            }
            isPrivate = AnswerFreshness.isPrivate(route: route, request: request)
            shared = isPrivate ? nil : Sent(upstreamHeaders, route: route, query: base.query, keys: pageKeyTable)
            vary = AnswerFreshness.vary(route: route)
            routeETagShape = RequestPlan.etagShape(
                route: route, itemsPath: nil, pageLimit: options.pageLimit, itemLimit: options.itemLimit, skip: window?.skip,
                fields: controls.fields)
        }
    }

    /// Everything besides the pages that decides the merged bytes (`AggregateETag`): the items path (an auto route's
    /// as detected), the limits, the window's skip and the fields.
    func etagShape(itemsPath: String?) -> String {
        guard let itemsPath else { return decided.routeETagShape }
        return Self.etagShape(
            route: route, itemsPath: itemsPath, pageLimit: options.pageLimit, itemLimit: options.itemLimit, skip: window?.skip,
            fields: controls.fields)
    }

    private static func etagShape(
        route: RouteConfig, itemsPath: String?, pageLimit: Int?, itemLimit: Int?, skip: Int?, fields: FieldSelection?
    ) -> String {
        "\(ScanPaths.version)\u{0}\(route.pagination.name)\u{0}\(itemsPath ?? route.itemsPath.description)\u{0}\(pageLimit ?? -1)\u{0}\(itemLimit ?? -1)"
            + "\u{0}\(skip ?? 0)\u{0}\(fields?.description ?? "")"
    }

    /// How a failed walk of this request is answered.
    func failure(_ error: PaginationError) -> PaginationErrorResponse {
        PaginationErrorResponse(error, route: route.name, secrets: secrets)
    }

    /// The route's base URL, with the request's extra path appended and its query (controls removed) merged in.
    private static func upstreamURL(route: RouteConfig, subpath: String, query: String?) -> PageURL {
        let upstream = route.upstream
        var path = upstream.path
        if !subpath.isEmpty {
            path = (path.hasSuffix("/") ? String(path.dropLast()) : path) + subpath
        }
        let queries = [upstream.query, query].compactMap { $0 }.filter { !$0.isEmpty }
        return PageURL(
            scheme: upstream.scheme, host: upstream.host, port: upstream.port, path: path,
            query: queries.isEmpty ? nil : queries.joined(separator: "&"))
    }
}
