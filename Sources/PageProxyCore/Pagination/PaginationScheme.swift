/// How an upstream API tells its client where the next page is.
///
/// Each case carries the parameter names and JSON paths of one family of real services; the defaults are
/// those the best-known service of the family uses.
public enum PaginationScheme: Sendable, Equatable {
    /// `?page=N&per_page=M`; stops on a short or empty page, or at a total (plain APIs, GitLab).
    case pageNumber(PageNumber)
    /// `?offset=N&limit=M`; stops at a total or a short page (DRF limit-offset, SQL-backed APIs).
    case offset(Offset)
    /// RFC 8288 `Link: <…>; rel="next"`, with `rel="last"` giving the page count (GitHub, Shopify).
    case linkHeader(LinkHeader)
    /// `X-Next-Page` and `X-Total-Pages` response headers (GitLab).
    case nextPageHeader(NextPageHeader)
    /// An absolute or relative next URL at a JSON path of the body (DRF `next`, JSON:API `links.next`).
    case nextURLInBody(NextURLInBody)
    /// An opaque cursor at a JSON path of the body, sent back as a query parameter (Slack).
    case cursorInBody(CursorInBody)
    /// A `has_more` flag and `starting_after=<id of the last item>` (Stripe).
    case hasMore(HasMore)

    /// The scheme's name as written in `config.json`.
    public var name: String {
        switch self {
        case .pageNumber: "page-number"
        case .offset: "offset"
        case .linkHeader: "link-header"
        case .nextPageHeader: "next-page-header"
        case .nextURLInBody: "next-url"
        case .cursorInBody: "cursor"
        case .hasMore: "has-more"
        }
    }

    /// Every scheme name `config.json` accepts.
    public static let names = [
        "page-number", "offset", "link-header", "next-page-header", "next-url", "cursor", "has-more",
    ]

    public struct PageNumber: Sendable, Equatable {
        public var pageParameter = "page"
        public var firstPage = 1
        /// The page-size parameter; `nil` leaves the upstream's default page size.
        public var sizeParameter: String? = "per_page"
        public var pageSize: Int? = nil
        /// Where the body states the total number of items, if it does.
        public var totalItemsPath: JSONPath? = nil
        /// Where the body states the total number of pages, if it does.
        public var totalPagesPath: JSONPath? = nil
        /// A response header that states the total number of pages (GitLab's `X-Total-Pages`).
        public var totalPagesHeader: String? = nil
        /// With no total known, how many pages past the current one may be fetched speculatively.
        public var lookahead = 0
        /// With no total known, a page after the first answered with one of these statuses ends the walk (DRF and
        /// many Rails and Laravel APIs answer 404 "Invalid page." past the last page).
        public var endStatuses: Set<Int> = [404]
        public init() {}
    }

    public struct Offset: Sendable, Equatable {
        public var offsetParameter = "offset"
        public var limitParameter = "limit"
        public var limit = 100
        /// Where the body states the total number of items (DRF's `count`), if it does.
        public var totalItemsPath: JSONPath? = nil
        /// A response header that states the total number of items (`X-Total-Count`).
        public var totalItemsHeader: String? = nil
        public var lookahead = 0
        /// With no total known, a page after the first answered with one of these statuses ends the walk.
        public var endStatuses: Set<Int> = [404]
        public init() {}
    }

    public struct LinkHeader: Sendable, Equatable {
        /// The query parameter that numbers pages in `next` and `last` links, used to fan out from `last`.
        public var pageParameter = "page"
        public var sizeParameter: String? = "per_page"
        public var pageSize: Int? = nil
        /// Before the first page's `last` link is known, how many pages after it may be fetched speculatively by
        /// numbering them (`page=2`, `page=3` …): the first round then takes one latency, not two. Guesses the
        /// links turn out to match are kept; the rest are cancelled and cost an upstream request each.
        public var lookahead = 0
        public init() {}
    }

    public struct NextPageHeader: Sendable, Equatable {
        public var pageParameter = "page"
        public var nextPageHeader = "X-Next-Page"
        public var totalPagesHeader: String? = "X-Total-Pages"
        public var sizeParameter: String? = "per_page"
        public var pageSize: Int? = nil
        public init() {}
    }

    public struct NextURLInBody: Sendable, Equatable {
        public var nextPath = JSONPath(components: [.key("next")])
        /// Where the body states the total number of items (DRF's `count`, JSON:API's `meta.total`), if it does: when
        /// the next link numbers its pages, the remaining pages are fetched concurrently.
        public var totalItemsPath: JSONPath? = nil
        /// Where the body states the total number of pages, if it does.
        public var totalPagesPath: JSONPath? = nil
        public init() {}
    }

    public struct CursorInBody: Sendable, Equatable {
        public var cursorPath = JSONPath(components: [.key("response_metadata"), .key("next_cursor")])
        public var cursorParameter = "cursor"
        public var sizeParameter: String? = "limit"
        public var pageSize: Int? = nil
        public init() {}
    }

    public struct HasMore: Sendable, Equatable {
        public var hasMorePath = JSONPath(components: [.key("has_more")])
        /// The path of the id inside one item.
        public var idPath = JSONPath(components: [.key("id")])
        public var afterParameter = "starting_after"
        public var sizeParameter: String? = "limit"
        public var pageSize: Int? = nil
        public init() {}
    }
}
