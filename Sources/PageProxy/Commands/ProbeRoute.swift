import PageProxyCore
import PageProxyServer

/// The `config.json` route `PageProxy probe` prints for what it detected: valid JSON that `check-config` accepts,
/// naming only the options that differ from the scheme's defaults.
enum ProbeRoute {
    /// The route as one JSON object on a few lines; with no `scheme`, an `auto` route (a page that is the whole list).
    static func json(
        url: PageURL, detected: DetectedPagination, scheme: PaginationScheme?, headers: [(name: String, value: String)]
    ) -> String {
        var route = "{ "
        JSONText.appendString("name", to: &route)
        route += ": "
        JSONText.appendString(name(for: url), to: &route)
        route += ", "
        JSONText.appendString("upstream", to: &route)
        route += ": "
        // Secret query values are redacted as on every other line of probe's output (ProbeCommand says so).
        JSONText.appendString((scheme.map { withoutPageNumber(url, scheme: $0) } ?? url).redactedDescription, to: &route)
        route += ",\n  \"pagination\": " + JSONText.object(scheme.map(paginationFields) ?? [("scheme", .string("auto"))])
        if detected.itemsPath != .root {
            route += ", \"items\": "
            JSONText.appendString(detected.itemsPath.description, to: &route)
        }
        if !headers.isEmpty {
            // Credentials are never echoed: a secret becomes a ${VARIABLE} that the config expands at start.
            route += ",\n  \"headers\": " + JSONText.object(headers.map { ($0.name, .string(placeholder(for: $0))) })
        }
        return route + " }"
    }

    /// The scheme's name and the options that differ from its defaults.
    static func paginationFields(_ scheme: PaginationScheme) -> [(String, LogValue)] {
        var fields: [(String, LogValue)] = [("scheme", .string(scheme.name))]
        switch scheme {
        case .nextURLInBody(let options):
            if options.nextPath != PaginationScheme.NextURLInBody().nextPath { fields.append(("nextPath", .string(options.nextPath.description))) }
            if let path = options.totalItemsPath { fields.append(("totalItemsPath", .string(path.description))) }
            if let path = options.totalPagesPath { fields.append(("totalPagesPath", .string(path.description))) }
            if let path = options.morePath { fields.append(("morePath", .string(path.description))) }
        case .cursorInBody(let options):
            let defaults = PaginationScheme.CursorInBody()
            if let path = options.cursorObjectPath {
                fields.append(("cursorObjectPath", .string(path.description)))
            } else if options.cursorPath != defaults.cursorPath {
                fields.append(("cursorPath", .string(options.cursorPath.description)))
            }
            if options.cursorObjectPath == nil, options.cursorParameter != defaults.cursorParameter { fields.append(("cursorParameter", .string(options.cursorParameter))) }
            if let path = options.morePath { fields.append(("morePath", .string(path.description))) }
        case .pageNumber(let options):
            let defaults = PaginationScheme.PageNumber()
            if options.pageParameter != defaults.pageParameter { fields.append(("pageParameter", .string(options.pageParameter))) }
            if options.sizeParameter != defaults.sizeParameter, let name = options.sizeParameter {
                fields.append(("sizeParameter", .string(name)))
            }
            if let size = options.pageSize { fields.append(("pageSize", .int(size))) }
            if let path = options.totalPagesPath { fields.append(("totalPagesPath", .string(path.description))) }
            if let path = options.totalItemsPath { fields.append(("totalItemsPath", .string(path.description))) }
            fields += headerFields("totalPages", options.totalPagesHeader, options.totalPagesHeaderPath)
            fields += headerFields("totalItems", options.totalItemsHeader, options.totalItemsHeaderPath)
        case .offset(let options):
            let defaults = PaginationScheme.Offset()
            if options.offsetParameter != defaults.offsetParameter { fields.append(("offsetParameter", .string(options.offsetParameter))) }
            if options.limitParameter != defaults.limitParameter { fields.append(("limitParameter", .string(options.limitParameter))) }
            fields.append(("limit", .int(options.limit)))
            if let path = options.totalItemsPath { fields.append(("totalItemsPath", .string(path.description))) }
            fields += headerFields("totalItems", options.totalItemsHeader, options.totalItemsHeaderPath)
        case .nextPageHeader(let options):
            let defaults = PaginationScheme.NextPageHeader()
            if options.pageParameter != defaults.pageParameter { fields.append(("pageParameter", .string(options.pageParameter))) }
            if options.nextPageHeader != defaults.nextPageHeader || options.nextPageHeaderPath != nil {
                fields += headerFields("nextPage", options.nextPageHeader, options.nextPageHeaderPath)
            }
            if options.totalPagesHeader != defaults.totalPagesHeader || options.totalPagesHeaderPath != nil {
                fields += headerFields("totalPages", options.totalPagesHeader, options.totalPagesHeaderPath)
            }
        default:
            break
        }
        return fields
    }

    /// `<prefix>Header` and, for a JSON header, `<prefix>HeaderPath` (`X-Pagination` and `total_pages`).
    private static func headerFields(_ prefix: String, _ header: String?, _ path: JSONPath?) -> [(String, LogValue)] {
        guard let header else { return [] }
        return [(prefix + "Header", .string(header))] + (path.map { [(prefix + "HeaderPath", .string($0.description))] } ?? [])
    }

    /// `url` without the parameters that number the pages (page-number's page, offset's offset) and their size when
    /// the route's `pagination` names it: a route's `upstream` that sets one makes every client's own a 400, "given
    /// more than once" (attack16 L5: `?page=1&per_page=3` was printed).
    private static func withoutPageNumber(_ url: PageURL, scheme: PaginationScheme) -> PageURL {
        let numbering: Set<String>
        switch scheme {
        case .pageNumber(let options):
            numbering = Set([options.pageParameter] + (options.pageSize == nil ? [] : [options.sizeParameter].compactMap { $0 }))
        case .offset(let options): numbering = [options.offsetParameter, options.limitParameter]
        default: return url
        }
        guard let query = url.query else { return url }
        let kept = query.split(separator: "&").filter { pair in
            let name = String(pair.prefix { $0 != "=" })
            return !numbering.contains(PageURL.decodeQueryComponent(name) ?? name)
        }
        return PageURL(scheme: url.scheme, host: url.host, port: url.port, path: url.path, query: kept.isEmpty ? nil : kept.joined(separator: "&"))
    }

    /// A route name from the URL's last path segment (`/api/things/` → `things`), as config.json allows them.
    static func name(for url: PageURL) -> String {
        let segment = url.path.split(separator: "/").last.map(String.init) ?? ""
        let allowed = segment.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
        return allowed.isEmpty ? "api" : String(allowed.prefix(64))
    }

    private static func placeholder(for header: (name: String, value: String)) -> String {
        // The names whose values are redacted everywhere else (attack16 M2: `X-Api-Password` was printed in clear).
        guard CredentialRedaction.isSecretHeader(header.name) else { return header.value }
        let variable = header.name.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return "${\(String(variable))}"
    }
}
