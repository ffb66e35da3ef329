/// Why a walk over an upstream's pages ended before its last page.
///
/// Every error names the page it happened on (``page``) and, where there is one, the upstream URL (``url``).
///
/// ## Evolution
/// New cases may be added in a minor release, as PageProxy learns new ways for a walk to fail (upstream statuses,
/// redirects, the end of pages); a `switch` over it should end with `default:`. The associated values of an
/// existing case do not change within a major release.
public enum PaginationError: Error, CustomStringConvertible {
    /// The upstream answered a page with a status other than 2xx; `body` keeps what it said.
    case upstreamStatus(page: Int, url: PageURL, status: Int, body: UpstreamErrorBody)
    /// No answer for a page (connection, timeout, TLS …), after any retries.
    case upstreamFailed(page: Int, url: PageURL, error: UpstreamError)
    /// The page's body is not valid JSON, or has no items array at the configured path.
    case invalidJSON(page: Int, url: PageURL, error: JSONScanError)
    /// A next link points to another origin: refused, never requested (SSRF defence).
    case foreignOrigin(page: Int, refused: String, allowed: String)
    /// A next link that PageProxy cannot use (not a URL, not http or https).
    case invalidNextLink(page: Int, link: String)
    /// A page URL came up a second time: following it would loop forever.
    case loop(page: Int, url: PageURL)
    /// A page reached by the link or cursor of the page before holds that page's items again, under a new URL, with the
    /// same link or cursor on (or too many times in a row): the upstream ignores what it sent, and following on would
    /// fetch the same page until the route's page limit.
    case repeatedPage(page: Int, url: PageURL)
    /// The walk needs more pages than the route allows.
    case tooManyPages(limit: Int)
    /// The scheme says there is more, but gives no way to ask for it (e.g. `has_more` with no last id).
    case cannotContinue(page: Int, reason: String)
    /// A page of a walk PageProxy numbered from a stated total (or `last` link) states another: the list changed
    /// between the pages (items added or removed), or pages of two versions met (review17 B5), and the pages numbered
    /// from the first would repeat or miss items. `stated` is the page's end, `numbered` the one the walk numbered from.
    case listChanged(page: Int, stated: Int, numbered: Int)
    /// A page numbered from an estimated total began with the item the page before ended with: items were added at the
    /// list's head during the walk (retest16 N1).
    case itemsShifted(page: Int)
    /// A page of a walk PageProxy numbered from a stated total holds another count of items than the size the walk
    /// numbered its pages by (`held` against `numbered`): the upstream's page size changed between the pages, or pages
    /// of two sizes met in the cache (attack16 M3), and the pages numbered would repeat or miss items.
    case pageSizeChanged(page: Int, held: Int, numbered: Int)
    /// `scheme: "auto"` could not tell from the first page how to walk it (no items found, or more items stated
    /// than the page holds with no way to the next page).
    case notDetected(url: PageURL, reason: String)
    /// A typed walk's item did not decode as its `Item` type (`PageProxyClient.items(of:)` with a ``PaginatedRequest``).
    case itemDecodingFailed(ItemDecodingFailure)
    /// The walk was cancelled because its client went away: nobody is left to answer, and no upstream failed.
    case cancelled

    /// The page the error happened on, when there is one.
    public var page: Int? {
        switch self {
        case .upstreamStatus(let page, _, _, _), .upstreamFailed(let page, _, _), .invalidJSON(let page, _, _),
            .foreignOrigin(let page, _, _), .invalidNextLink(let page, _), .loop(let page, _), .repeatedPage(let page, _),
            .cannotContinue(let page, _), .listChanged(let page, _, _), .pageSizeChanged(let page, _, _), .itemsShifted(let page):
            page
        case .notDetected: 1
        case .itemDecodingFailed(let failure): failure.page
        case .tooManyPages, .cancelled: nil
        }
    }

    /// The upstream URL involved, if any.
    public var url: PageURL? {
        switch self {
        case .upstreamStatus(_, let url, _, _), .upstreamFailed(_, let url, _), .invalidJSON(_, let url, _), .loop(_, let url),
            .repeatedPage(_, let url), .notDetected(let url, _):
            url
        case .itemDecodingFailed(let failure): failure.url
        default: nil
        }
    }

    /// What went wrong and, where it helps, what to do about it.
    public var description: String {
        switch self {
        case .upstreamStatus(let page, _, let status, _):
            "the upstream answered page \(page) with status \(status)"
        case .upstreamFailed(let page, _, let error):
            "page \(page) could not be fetched: \(error)"
        case .invalidJSON(let page, _, let error):
            "page \(page) is not usable JSON: \(error)"
        case .foreignOrigin(let page, let refused, let allowed):
            "page \(page) links to \(refused), outside the route's origin \(allowed); the link was not followed"
        case .invalidNextLink(let page, let link):
            "page \(page) has a next link that is not an http(s) URL: \(CredentialRedaction.redactURL(link).prefix(200))"
        case .loop(let page, let url):
            "page \(page) would fetch \(url.path) again: the upstream's pagination loops"
        case .repeatedPage(let page, let url):
            "page \(page) (\(url.path)) holds the same items as page \(page - 1), with the same link or cursor on or after "
                + "\(RepeatedPageGuard.maxRepeatsInRow) such pages in a row: the upstream repeated a page under a new URL (it "
                + "ignores the link or cursor it sent); the walk stopped rather than fetch it again and again"
        case .tooManyPages(let limit):
            "the upstream has more than \(limit) pages, the route's maxPages; raise it or narrow the query"
        case .cannotContinue(let page, let reason):
            "cannot continue after page \(page): \(reason)"
        case .listChanged(let page, let stated, let numbered):
            "page \(page) states the list's end as \(stated) where the walk numbered its pages from \(numbered): the list "
                + "changed during the walk (items added or removed), so the pages numbered before would repeat or miss items; "
                + "retry the request"
        case .itemsShifted(let page):
            "page \(page) begins with the item the page before it ended with: the list changed during the walk (items added "
                + "at its head), so the pages numbered would repeat items; retry the request"
        case .pageSizeChanged(let page, let held, let numbered):
            "page \(page) holds \(held) items where the walk numbered its pages by \(numbered) a page: the upstream served "
                + "pages of two sizes (its page size changed between them, or pages of two sizes met in the cache), so the "
                + "pages numbered would repeat or miss items; retry the request"
        case .notDetected(_, let reason):
            "scheme \"auto\" cannot tell how to walk this upstream: \(reason)"
        case .itemDecodingFailed(let failure):
            failure.description
        case .cancelled:
            "the walk was cancelled: its client went away"
        }
    }
}

extension PaginationError {
    /// Whether the pages of the walk disagree about the list they were cut from (`listChanged`, `pageSizeChanged`): a
    /// server walks once more, revalidating every page, when one came from its cache.
    package var isListChange: Bool {
        switch self {
        case .listChanged, .pageSizeChanged, .itemsShifted: true
        default: false
        }
    }
}

extension PaginationError {
    /// Whether the upstream failed the page (a status, or no answer after the retries), as a check page may: not a
    /// guard of the walk.
    var isUpstreamFailure: Bool {
        switch self {
        // Pages before the check may have been stray responses (stray19): the walk fails, it does not end there.
        case .upstreamFailed(_, _, .strayResponse): false
        case .upstreamStatus, .upstreamFailed: true
        default: false
        }
    }
}
