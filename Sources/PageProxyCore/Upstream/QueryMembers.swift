import Foundation

/// Pagination parameters that live inside one structured query parameter: Flask-AppBuilder's and Apache Superset's
/// Rison `?q=(order_column:id,page:0,page_size:100)`, or GraphQL's JSON `?variables={"first":100,"after":"…"}` over
/// GET (real15). A route names them `q.page` and `q.page_size` (`"queryEncoding": "rison"` or `"json"`).
///
/// The walk sees them as ordinary parameters: a request's query is *lifted* once, in the plan (`q`'s members `page` and
/// `page_size` become `q.page=0&q.page_size=100`, the other members stay in `q`), so every scheme numbers, reads and
/// sets them as it does `page`, and the cache keys pages by that form. What is sent upstream is *folded* back
/// (`QueryMembersFoldingTransport`): `q=(order_column:id,page:3,page_size:100)`.
package struct QueryMembers: Sendable, Equatable {
    /// How the parameter's value is written.
    package enum Encoding: String, Sendable, CaseIterable {
        case rison
        case json
    }

    package let encoding: Encoding
    /// The query parameter that holds the object (`q`).
    package let parameter: String
    /// The members lifted out of it (`page`, `page_size`), each walked as the parameter `parameter.member`.
    package let members: [String]
    /// The members always sent as strings (a cursor, which may be all digits); the others go as numbers when they are
    /// integers (a page, a size).
    package let textMembers: Set<String>

    /// From the route's parameter names: those written `q.member` are members of `q`; `textNames` are the names whose
    /// values are strings. Nil when none is so written, or when they name two parameters (`a.page`, `b.size`), or an
    /// empty one.
    package init?(names: [String], textNames: Set<String> = [], encoding: Encoding = .rison) {
        var parameter: String?
        var members: [String] = []
        var textMembers: Set<String> = []
        for name in names {
            guard let dot = name.firstIndex(of: ".") else { continue }
            let (owner, member) = (String(name[..<dot]), String(name[name.index(after: dot)...]))
            guard !owner.isEmpty, !member.isEmpty, parameter == nil || parameter == owner else { return nil }
            parameter = owner
            members.append(member)
            if textNames.contains(name) { textMembers.insert(member) }
        }
        guard let parameter else { return nil }
        self.encoding = encoding
        self.parameter = parameter
        self.members = members
        self.textMembers = textMembers
    }

    /// Why a query's `q` cannot be lifted: not Rison, not an object, or a lifted member that is no number or string.
    package struct Invalid: Error, Equatable {
        package let parameter: String
        package let message: String
    }

    /// `url` with its `q` (every occurrence, later members over earlier ones, in the first one's place) read, and the
    /// members walked as parameters appended as `q.member=value`; `q` is left out once nothing else is in it. `+` in
    /// `q` is a space, as the upstream's form decoding reads it. The URL as it is with no `q`. An empty `q` (`?q=`) is
    /// no `q`, left out: Flask-AppBuilder reads it so (`if value:` before `prison.loads`; retest15: it was a 400).
    package func lifting(_ url: PageURL) throws(Invalid) -> PageURL {
        let all = url.queryPairs
        let pairs = all.filter { !($0.value.isEmpty && Self.name($0.name) == parameter) }
        var merged: [(name: String, value: QueryValue)]?
        for pair in pairs where Self.name(pair.name) == parameter {
            guard case .object(let members) = try read(pair.value) else {
                let example = encoding == .rison ? "(page:0,page_size:25)" : #"{"first":100}"#
                throw Invalid(parameter: parameter, message: "\(parameter) must be a \(encoding.name) object such as \(example), not \"\(pair.value.prefix(60))\"")
            }
            merged = members.reduce(into: merged ?? []) { all, member in
                if let index = all.firstIndex(where: { $0.name == member.name }) { all[index].value = member.value } else { all.append(member) }
            }
        }
        guard let merged else {
            return pairs.count == all.count ? url : Self.url(url, query: pairs.map { $0.name + "=" + $0.value })
        }
        var lifted: [String] = []
        for member in members {
            guard let value = merged.first(where: { $0.name == member })?.value else { continue }
            let text: String
            switch value {
            case .number(let number): text = number
            case .string(let string): text = string
            // What GraphQL clients send for the first page (`"after": null`, attack16 L2): as if absent.
            case .null: continue
            default:
                let written = encoding == .rison ? value.encoded : value.jsonText
                throw Invalid(parameter: parameter, message: "\(parameter)'s member \(member) must be a number or a string, not \(written.prefix(40))")
            }
            lifted.append(PageURL.encodeQueryComponent(parameter + "." + member) + "=" + PageURL.encodeQueryComponent(text))
        }
        let rest = merged.filter { !members.contains($0.name) }
        var query: [String] = []
        var placed = false
        for pair in pairs {
            guard Self.name(pair.name) == parameter else {
                query.append(pair.name + "=" + pair.value)
                continue
            }
            if !placed, !rest.isEmpty { query.append(pair.name + "=" + encoded(.object(rest))) }
            placed = true
        }
        return Self.url(url, query: query + lifted)
    }

    /// `url` with the query `parts` joined, or none when there are none.
    private static func url(_ url: PageURL, query parts: [String]) -> PageURL {
        let joined = parts.joined(separator: "&")
        return joined.isEmpty ? PageURL(scheme: url.scheme, host: url.host, port: url.port, path: url.path, query: nil) : url.replacingQuery(joined)
    }

    /// `url` with every `q.member` parameter put back into `q` (in `q`'s place, or the first member's when there is
    /// none): a number as the number it was written as (`page:3`, a client's `page:1e2`: retest15 sent `'1e2'`),
    /// anything else as a string. The URL as it is with no such parameter.
    package func folding(_ url: PageURL) -> PageURL {
        let pairs = url.queryPairs
        var values: [(member: String, value: QueryValue)] = []
        for pair in pairs {
            let name = Self.name(pair.name)
            guard name.hasPrefix(parameter + "."), case let member = String(name.dropFirst(parameter.count + 1)), members.contains(member) else {
                continue
            }
            let text = PageURL.decodeQueryComponent(pair.value) ?? pair.value
            let isNumber = Int(text) != nil || QueryValue.isNumberText(text)
            values.append((member, isNumber && !textMembers.contains(member) ? .number(text) : .string(text)))
        }
        guard !values.isEmpty else { return url }
        // The plan lifted (so read) every `q` a walk sends: one that no longer reads (never) is replaced, not kept.
        let own = pairs.first { Self.name($0.name) == parameter }.flatMap { try? read($0.value) } ?? .object([])
        let folded = values.reduce(own) { $0.settingMember($1.member, to: $1.value) }
        var query: [String] = []
        var placed = false
        for pair in pairs {
            let name = Self.name(pair.name)
            let isOurs = name == parameter || values.contains { name == parameter + "." + $0.member }
            guard isOurs else {
                query.append(pair.name + "=" + pair.value)
                continue
            }
            if !placed { query.append(PageURL.encodeQueryComponent(parameter) + "=" + encoded(folded)) }
            placed = true
        }
        return url.replacingQuery(query.joined(separator: "&"))
    }

    private func read(_ raw: String) throws(Invalid) -> QueryValue {
        guard let text = PageURL.decodeQueryComponent(raw.replacingOccurrences(of: "+", with: " ")) else {
            throw Invalid(parameter: parameter, message: "\(parameter) has a malformed percent-escape")
        }
        do {
            return switch encoding {
            case .rison: try RisonDecoder.decode(text)
            case .json: try QueryJSONDecoder.decode(text)
            }
        } catch {
            throw Invalid(parameter: parameter, message: "\(parameter) is not \(encoding.name) (\(error)): \"\(text.prefix(60))\"")
        }
    }

    private static func name(_ raw: String) -> String { PageURL.decodeQueryComponent(raw) ?? raw }

    /// The value as the query carries it: Rison as rison.js's `quote` writes it, its own punctuation (`'!:(),*@$`) as it
    /// is; JSON compact; the rest of what is not unreserved percent-encoded (`+` and a space too: the upstream reads `+`
    /// as a space).
    func encoded(_ value: QueryValue) -> String {
        switch encoding {
        case .rison: value.encoded.addingPercentEncoding(withAllowedCharacters: Self.risonAllowed) ?? value.encoded
        case .json: PageURL.encodeQueryComponent(value.jsonText)
        }
    }

    private static let risonAllowed: CharacterSet = {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        allowed.insert(charactersIn: "'!:(),*@$")
        return allowed
    }()
}

extension QueryMembers.Encoding {
    /// As messages name it.
    var name: String { self == .rison ? "Rison" : "JSON" }
}
