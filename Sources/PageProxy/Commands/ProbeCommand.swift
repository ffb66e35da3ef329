import Foundation
import PageProxyCore

/// `PageProxy probe URL [--header 'Name: value']...`: fetches the first page, says how it paginates (scheme,
/// items path, item count, total, next page) and prints a route for `config.json`; exits 1 when it cannot tell.
enum ProbeCommand {
    static let usage = "usage: PageProxy probe URL [--header 'Name: value']... [--more-path PATH]"

    static func run(_ arguments: [String]) async -> Int32 {
        var urlText: String?
        var headers: [(name: String, value: String)] = []
        var morePath: JSONPath?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--header" || argument == "-H" {
                index += 1
                guard index < arguments.count, let colon = arguments[index].firstIndex(of: ":") else {
                    printError("PageProxy probe: --header needs \"Name: value\"; \(usage)")
                    return 2
                }
                let header = arguments[index]
                let name = String(header[..<colon])
                let value = String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                // As check-config refuses them in a route's `headers`: a line break would split the field in two.
                if let problem = ConfigHeaderRules.problem(withName: name) ?? ConfigHeaderRules.problem(withValue: value) {
                    printError("PageProxy probe: --header: \(problem); \(usage)")
                    return 2
                }
                headers.append((name, value))
            } else if argument == "--more-path" {
                // A route's `morePath` to check against the page (retest19 F4: a misspelt one was silent).
                index += 1
                guard index < arguments.count, let path = JSONPath(arguments[index]), path != .root else {
                    printError("PageProxy probe: --more-path needs a JSON path such as meta.has_more; \(usage)")
                    return 2
                }
                morePath = path
            } else if urlText == nil, !argument.hasPrefix("-") {
                urlText = argument
            } else {
                printError("PageProxy probe: unexpected argument \"\(argument)\"; \(usage)")
                return 2
            }
            index += 1
        }
        guard let urlText, let requested = PageURL(string: urlText), requested.scheme == "http" || requested.scheme == "https" else {
            printError("PageProxy probe: give the first page's http:// or https:// URL; \(usage)")
            return 2
        }
        if hasUserInfo(urlText) {
            printError("PageProxy probe: the user name and password in the URL are not sent (nor put in the route); "
                + "give them as --header 'Authorization: Basic …' (base64 of user:password)")
        }
        var fields = HTTPHeaders()
        for header in headers { fields.add(header.name, header.value) }
        // The credentials sent, in the fields and the query, are redacted from everything this prints (review14 F2):
        // an error body may quote them, and a redirect's `Location` may carry them (attack14 M5). As `secrets(in:)`
        // keeps them: at least 4 characters (a `sig=a` would redact every "a"), longest first.
        let secrets = (CredentialRedaction.secrets(in: fields)
            + requested.queryPairs.filter { CredentialRedaction.isSecretName($0.name) }.map { $0.value.removingPercentEncoding ?? $0.value })
            .filter { $0.count >= 4 }.sorted { $0.count > $1.count }
        let response: UpstreamResponse
        let sent = LastURLTransport(base: HTTP1Transport())
        do throws(UpstreamError) {
            // As a route would: same-origin redirects (Django's APPEND_SLASH) are followed.
            response = try await RedirectingTransport(base: sent).send(
                UpstreamRequest(url: requested, headers: fields), timeout: .seconds(30), maxBodyBytes: 16 << 20)
        } catch {
            printError("PageProxy probe: \(requested.redactedDescription) could not be fetched: "
                + CredentialRedaction.redactText("\(error)", secrets: secrets, schemes: false))
            return 1
        }
        print("PageProxy probe \(requested.redactedDescription)")
        // The page is the redirect's target: links resolve against it, and the route names it.
        let url = sent.lastURL ?? requested
        if url != requested { print("  moved    to \(url.redactedDescription) (the route below names it)") }
        print("  status   \(response.status.code)")
        guard (200..<300).contains(response.status.code) else {
            // An error body may quote what it was sent (a gateway's "invalid key sk_live_…").
            let excerpt = CredentialRedaction.redactText(String(decoding: response.body.prefix(300), as: UTF8.self), secrets: secrets)
            print("cannot tell: the upstream answered \(response.status.code), not a page: \(excerpt)")
            return 1
        }
        let detected: DetectedPagination
        do {
            detected = try SchemeDetector.detect(response, url: url)
        } catch {
            print("cannot tell: \(error)")
            return 1
        }
        print("  scheme   \(detected.schemeName) (from \(detected.evidence))")
        print("  items    \(detected.itemsPath) (\(detected.itemCount) on this page)")
        print("  total    " + (detected.total.map { "\($0) (\(detected.totalSource ?? ""))" } ?? "not stated"))
        print("  next     \(detected.next.map(CredentialRedaction.redactURL) ?? "none on this page")")
        let besides = detected.scheme.map(PaginationScheme.valuesBesideMoreFlag) ?? []
        let neighbours = besides + (detected.itemsPath == .root ? [] : [("route's items", detected.itemsPath)])
        if let line = moreLine(asked: morePath, detected: detected.scheme?.morePath, besides: neighbours, body: response.body) {
            print(line)
        }
        guard let scheme = detected.scheme else {
            // A page that holds the total it states is the whole list: `auto` answers it as one page (review24 P5).
            if let total = detected.total, detected.itemCount >= total {
                print("\none page: it holds every item of the total it states (\(detected.itemCount) of \(total)), and "
                    + "\"scheme\": \"auto\" answers it as it is (should the list outgrow one page with no way to the next, auto answers 502 "
                    + "pagination_not_detected, never a part of it):")
                print(ProbeRoute.json(url: url, detected: detected, scheme: nil, headers: headers))
                return 0
            }
            print("cannot tell: the page shows no way to a next page (\(SchemeDetector.signalsLookedFor)). "
                + "If it is the whole collection, \"scheme\": \"auto\" "
                + "answers it; if the API numbers its pages, use \"page-number\" or \"offset\".")
            return 1
        }
        print("\nA route for config.json (\"scheme\": \"auto\" detects the same on every request):")
        print(ProbeRoute.json(url: url, detected: detected, scheme: scheme, headers: headers))
        if url.redactedDescription != url.description {
            // Redacted everywhere, as the headers are: output pasted into an issue shows no secret.
            print("\nQuery values that look like secrets are shown as REDACTED, in the route too: put the real "
                + "values in its \"upstream\" (the upstream needs them).")
        }
        return 0
    }

    /// What the page holds at the `morePath` asked for (`--more-path`), or at the one detected: a flag, or (asked
    /// for) why a route with it would walk as without it, one request more at the end. A path that is one of the
    /// values the scheme reads (`besides`: its cursor, next link, totals, the items) is refused by check-config and
    /// serve, and said so here (retest20 #5: probe called it a warning). Nil with neither.
    static func moreLine(asked: JSONPath?, detected: JSONPath?, besides: [(key: String, path: JSONPath?)], body: [UInt8]) -> String? {
        guard let path = asked ?? detected else { return nil }
        if asked != nil, let how = path.collision(with: besides) {
            return "  more     \(path) \(how): check-config and serve refuse it as a morePath; name the flag beside it that says "
                + "whether more pages follow (true or false, e.g. \"has_more\")"
        }
        let value = (try? JSONScanner().values(in: body, at: [path]))?[path]
        if let flag = value?.flag {
            return "  more     \(path) is \(flag) on this page (morePath: a false there ends the walk)"
        }
        let found = value.map { "holds \($0.shortDescription), not true or false" } ?? "is absent on this page"
        return "  more     \(path) \(found): a route with this morePath walks by its next link or cursor alone (one request "
            + "more at the end), and serve logs a warning; check the member's name"
    }

    /// Whether the URL's authority has a `user:password@` part, which PageURL drops.
    private static func hasUserInfo(_ text: String) -> Bool {
        guard let components = URLComponents(string: text) else { return false }
        return components.user != nil || components.password != nil
    }
}
