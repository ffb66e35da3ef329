import PageProxyCore

/// The query parameters a route's scheme reads or writes, as the first page's URL gives them: each at most once, and a
/// page size PageProxy numbers pages by written as a whole number (review17 B6).
///
/// PageProxy reads the first of a repeated parameter; Django, Rails, PHP and Laravel read the last. `?limit=10&limit=100`
/// on an offset route stepped offsets by 10 over pages of 100: every item about ten times, under a 200. An unreadable
/// size (`per_page=1OO`) was taken for the route's own, trusted, while the upstream served its default: the first
/// page of 30 ended the walk. Both are the client's to fix: a 400 naming the parameter.
enum PaginationQueryCheck {
    struct Refused: Error {
        let parameter: String
        let message: String
    }

    /// - Throws: `Refused` (a 400) for a parameter of the scheme given twice, or a size it numbers pages by that is not
    ///   a whole number. An `auto` route's parameters are known only from its first page: not checked.
    /// - Parameter routeQuery: the route's own `upstream` query: a parameter given twice because it gives it too is
    ///   said to be the route's (retest16 L5: the 400 blamed the client for a route's `?page=1`).
    static func check(_ url: PageURL, pagination: RoutePagination, routeQuery: String? = nil) throws(Refused) {
        guard case .scheme(let scheme) = pagination else { return }
        let (parameters, size) = Self.parameters(of: scheme)
        let (number, signed) = Self.numberParameter(of: scheme)
        var seen: [String: String] = [:]
        for pair in url.queryPairs {
            let name = PageURL.decodeQueryComponent(pair.name) ?? pair.name
            guard parameters.contains(name) else { continue }
            let value = PageURL.decodeQueryComponent(pair.value) ?? pair.value
            if let earlier = seen[name] {
                if let routeQuery, Self.gives(routeQuery, name) {
                    throw Refused(
                        parameter: name,
                        message: "the route's upstream URL gives \(name) itself, and this request gives it too: the route's "
                            + "configuration must not write \(name) into its upstream (`check-config` says so); until it is fixed, ask "
                            + "without \(name)")
                }
                throw Refused(
                    parameter: name,
                    message: "the query gives \(name) more than once (\"\(earlier.prefix(40))\" and \"\(value.prefix(40))\"): PageProxy "
                        + "reads the first, many upstreams the last, and the pages would not be the ones counted; give it once")
            }
            seen[name] = value
            // Not 0 either (retest14 N1: `per_page=0` was answered `200 []` beside the upstream's total).
            if name == size, !(value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } && (Int(value) ?? 0) >= 1) {
                throw Refused(
                    parameter: name,
                    message: "\(name) must be a whole number of at least 1 in the digits 0-9, not \"\(value.prefix(40))\": the upstream "
                        + "would serve a page size of its own choosing, which PageProxy could not count pages by")
            }
            // The page or offset the walk numbers on from (attack16 M1: `page=2abc` was sent as is, read as 2 by parseInt
            // and to_i upstreams, and the walk numbered on from the route's first page: page 2 twice under a 200).
            if name == number, !Self.isWholeNumber(value, signed: signed) {
                throw Refused(
                    parameter: name,
                    message: "\(name) must be a whole number in the digits 0-9\(signed ? " (a leading - allowed)" : ""), not "
                        + "\"\(value.prefix(40))\": PageProxy numbers the pages after it from it, and the upstream may read another")
            }
        }
    }

    /// Whether `query` gives a parameter called `name` (percent-decoded).
    private static func gives(_ query: String, _ name: String) -> Bool {
        query.split(whereSeparator: { $0 == "&" || $0 == ";" }).contains { pair in
            let written = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return (PageURL.decodeQueryComponent(written) ?? written) == name
        }
    }

    /// The parameter a walk numbers or moves its pages by, which a client may give (a start page, a window): page-number's,
    /// link-header's and next-page-header's page, offset's offset, a cursor's (none where a cursor object's members
    /// are sent under their own names, `cursorObjectPath`: fix38's LOW, `?cursor=` there is the upstream's business).
    static func positionParameter(of scheme: PaginationScheme) -> String? {
        switch scheme {
        case .pageNumber(let options): options.pageParameter
        case .offset(let options): options.offsetParameter
        case .linkHeader(let options): options.pageParameter
        case .nextPageHeader(let options): options.pageParameter
        case .cursorInBody(let options): options.cursorObjectPath == nil ? options.cursorParameter : nil
        case .hasMore(let options): options.afterParameter
        case .nextURLInBody: nil
        }
    }

    /// `value` as `Int` reads it with no sign, or with a leading `-` when `signed`: no `+`, space, fraction or exponent.
    private static func isWholeNumber(_ value: String, signed: Bool) -> Bool {
        let digits = signed && value.hasPrefix("-") ? value.dropFirst() : Substring(value)
        return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } && Int(value) != nil
    }

    /// The parameter PageProxy numbers pages on from (page-number's page, may be negative; offset's offset), if any.
    private static func numberParameter(of scheme: PaginationScheme) -> (name: String?, signed: Bool) {
        switch scheme {
        case .pageNumber(let options): (options.pageParameter, true)
        case .offset(let options): (options.offsetParameter, false)
        default: (nil, false)
        }
    }

    /// The parameters `scheme` reads or writes, and the size parameter it numbers pages by (page-number, offset).
    private static func parameters(of scheme: PaginationScheme) -> (all: Set<String>, size: String?) {
        switch scheme {
        case .pageNumber(let options):
            return (Set([options.pageParameter, options.sizeParameter].compactMap { $0 }), options.sizeParameter)
        case .offset(let options):
            return ([options.offsetParameter, options.limitParameter], options.limitParameter)
        case .linkHeader(let options):
            return (Set([options.pageParameter, options.sizeParameter].compactMap { $0 }), nil)
        case .nextPageHeader(let options):
            return (Set([options.pageParameter, options.sizeParameter].compactMap { $0 }), nil)
        case .cursorInBody(let options):
            return (Set([positionParameter(of: scheme), options.sizeParameter].compactMap { $0 }), nil)
        case .hasMore(let options):
            return (Set([options.afterParameter, options.sizeParameter].compactMap { $0 }), nil)
        case .nextURLInBody:
            return ([], nil)
        }
    }
}

/// A pagination parameter the client got wrong is a 400 naming it.
extension PaginationQueryCheck.Refused: HTTPResponseError {
    var status: HTTPStatus { .badRequest }
    var code: String { "invalid_pagination_parameter" }
    var details: [(String, JSONFieldValue)] { [("parameter", .string(parameter))] }
}

/// A structured `q` (Rison, JSON) the route cannot read its pages in (`QueryMembers.lifting`) is a 400 naming it.
extension QueryMembers.Invalid: HTTPResponseError {
    package var status: HTTPStatus { .badRequest }
    package var code: String { "invalid_pagination_parameter" }
    package var details: [(String, JSONFieldValue)] { [("parameter", .string(parameter))] }
}
