/// How an upstream API tells its client where the next page is.
///
/// Each case carries the parameter names and JSON paths of one family of real services; the defaults are
/// those the best-known service of the family uses, so `.linkHeader(.init())` walks GitHub and
/// `.pageNumber(.init(pageSize: 50))` a plain numbered API.
///
/// ## Evolution
/// New schemes may be added as new cases in a minor release, as PageProxy learns the habits of more services. A
/// `switch` over a scheme should therefore end with `default:`; the cases' option structs may gain properties,
/// always with a default, so code that builds them with their initialisers keeps compiling.
///
/// ## Topics
/// ### Schemes
/// - <doc:PageNumberScheme>
/// - <doc:OffsetScheme>
/// - <doc:LinkHeaderScheme>
/// - <doc:NextPageHeaderScheme>
/// - <doc:NextURLInBodyScheme>
/// - <doc:CursorInBodyScheme>
/// - <doc:HasMoreScheme>
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
}
