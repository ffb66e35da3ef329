/// A value of JSON's data model as a structured query parameter carries it (`QueryMembers`): Rison, the compact JSON
/// for URLs that Flask-AppBuilder and Apache Superset read their `q` parameter as
/// (`(filters:!((col:name,opr:ct,value:x)),page:0,page_size:25)`: `(…)` an object, `!(…)` an array, `!t` `!f` `!n`,
/// strings bare where they are ids and `'…'` (with `!'` and `!!`) where not, numbers as JSON writes them), or JSON
/// (GraphQL's `variables`).
///
/// Our own, small (no dependency): PageProxy reads and writes only the members a route numbers its pages by, and keeps
/// every other member of the client's as it was (real15).
package enum QueryValue: Sendable, Equatable {
    case string(String)
    /// The number's text as written.
    case number(String)
    case bool(Bool)
    case null
    /// The members in their order; a later member of the same name is not merged (`settingMember` replaces in place).
    case object([(name: String, value: QueryValue)])
    case array([QueryValue])

    package static func == (lhs: QueryValue, rhs: QueryValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)), (.number(let a), .number(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        default: false
        }
    }

    /// The Rison text of this value.
    package var encoded: String {
        switch self {
        case .string(let text): Self.encodedString(text)
        case .number(let text): text
        case .bool(let flag): flag ? "!t" : "!f"
        case .null: "!n"
        case .array(let elements): "!(" + elements.map(\.encoded).joined(separator: ",") + ")"
        case .object(let members): "(" + members.map { Self.encodedString($0.name) + ":" + $0.value.encoded }.joined(separator: ",") + ")"
        }
    }

    /// The compact JSON text of this value.
    package var jsonText: String {
        switch self {
        case .string(let text): JSONText.string(text)
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array(let elements): "[" + elements.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONText.string($0.name) + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }

    /// An id (`page_size`, `desc`) bare; anything else quoted, `!` and `'` escaped with `!`.
    static func encodedString(_ text: String) -> String {
        if isID(text) { return text }
        var quoted = "'"
        for character in text {
            if character == "!" || character == "'" { quoted.append("!") }
            quoted.append(character)
        }
        return quoted + "'"
    }

    /// A string sent bare as a Rison id: not empty, not starting with `-` or a digit, and made only of ASCII letters,
    /// digits, `_-./~` and non-ASCII characters. That is the id of Python's `prison`, which Flask-AppBuilder and
    /// Superset decode `q` with, stricter than the Rison spec's (which leaves `&`, `=`, `#`, `?` … bare: `prison` then
    /// fails on `value:AT&T`, retest15 N1). Anything else is quoted, which every Rison decoder reads.
    static func isID(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !notIDStart.contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.value >= 0x80 || idPunctuation.contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar)
        }
    }

    /// Whether `text` is a number as Rison and JSON write one, whole (`1e2`, `-1.5`).
    static func isNumberText(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        let (end, problem) = RisonDecoder.scanNumber(scalars, from: 0)
        return problem == nil && end == scalars.count
    }

    static let idPunctuation: Set<Unicode.Scalar> = ["_", "-", ".", "/", "~"]
    /// What ends an id as the Rison spec reads one (`RisonDecoder`: a client's `q` may be written so).
    static let notIDChar: Set<Unicode.Scalar> = [" ", "'", "!", ":", "(", ")", ",", "*", "@", "$"]
    static let notIDStart: Set<Unicode.Scalar> = ["-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]

    /// The value of the first member `name` of an object; nil for another value or no such member.
    package func member(_ name: String) -> QueryValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// This object with member `name` set to `value`, in its place or appended; another value is returned as it is.
    package func settingMember(_ name: String, to value: QueryValue) -> QueryValue {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.name == name }) {
            members[index].value = value
        } else {
            members.append((name, value))
        }
        return .object(members)
    }

    /// This object without its members `names`; another value is returned as it is.
    package func removingMembers(_ names: Set<String>) -> QueryValue {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { !names.contains($0.name) })
    }
}
