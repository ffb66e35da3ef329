/// The query parameter `scheme: "auto"` numbers pages by when the first page's URL names none (attack14 H3, review17
/// B7): what the page's own pagination says its current page is called, before the guess `page`. ASP.NET Core's
/// `X-Pagination` `CurrentPage` is bound from `pageNumber` (case-insensitively) in its common paging habit, and a
/// `page` ignored there answers page 1 again and again.
extension SchemeDetector {
    /// Keys that state the current page, with the parameter each implies, in the order tried.
    static let pageParameterOfCurrentPageKey: [(key: String, parameter: String)] = [
        ("CurrentPage", "pageNumber"), ("currentPage", "pageNumber"), ("PageNumber", "pageNumber"), ("pageNumber", "pageNumber"),
        ("current_page", "current_page"), ("page_number", "page_number"), ("page", "page"),
    ]

    /// The parameter the first of those keys among `values` (read at one-key paths) implies; nil when none is there.
    static func impliedPageParameter(_ values: [JSONPath: JSONValue]) -> String? {
        pageParameterOfCurrentPageKey.first { values[key($0.key)]?.integer != nil }?.parameter
    }
}
