/// Reads Rison text (`QueryValue`) as rison.js and Python's `prison` (Flask-AppBuilder's) read it: no whitespace, the
/// whole text one value. Bounded: nesting deeper than `maxDepth` is an error, not a deep recursion on a client's `q`.
package struct RisonDecoder {
    /// Why the text is no Rison, with where (a character offset).
    package struct Invalid: Error, Equatable, CustomStringConvertible {
        package let offset: Int
        package let problem: String
        package var description: String { "\(problem) at character \(offset)" }
    }

    static let maxDepth = 32

    private let scalars: [Unicode.Scalar]
    private var index = 0

    private init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// The value `text` holds.
    package static func decode(_ text: String) throws(Invalid) -> QueryValue {
        var decoder = RisonDecoder(text)
        let value = try decoder.value(depth: 0)
        guard decoder.index == decoder.scalars.count else { throw decoder.invalid("unexpected \"\(decoder.scalars[decoder.index])\"") }
        return value
    }

    private func invalid(_ problem: String) -> Invalid { Invalid(offset: index, problem: problem) }

    private var next: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func value(depth: Int) throws(Invalid) -> QueryValue {
        guard depth < Self.maxDepth else { throw invalid("nested deeper than \(Self.maxDepth)") }
        guard let scalar = next else { throw invalid("a value is missing") }
        switch scalar {
        case "(":
            index += 1
            return .object(try members(depth: depth))
        case "!":
            index += 1
            guard let kind = next else { throw invalid("\"!\" ends the text") }
            index += 1
            switch kind {
            case "t": return .bool(true)
            case "f": return .bool(false)
            case "n": return .null
            case "(": return .array(try elements(depth: depth))
            default:
                index -= 1
                throw invalid("unknown \"!\(kind)\"")
            }
        case "'":
            index += 1
            return .string(try quoted())
        case "-", "0"..."9":
            return .number(try number())
        default:
            return .string(try id())
        }
    }

    /// After `(`: `name:value` pairs separated by `,`, up to `)`.
    private mutating func members(depth: Int) throws(Invalid) -> [(name: String, value: QueryValue)] {
        var members: [(name: String, value: QueryValue)] = []
        if next == ")" {
            index += 1
            return members
        }
        while true {
            let name: String
            if next == "'" {
                index += 1
                name = try quoted()
            } else {
                name = try id()
            }
            guard next == ":" else { throw invalid("expected \":\" after the member name \"\(name)\"") }
            index += 1
            members.append((name, try value(depth: depth + 1)))
            guard try separated(closingWith: ")") else { return members }
        }
    }

    /// After `!(`: values separated by `,`, up to `)`.
    private mutating func elements(depth: Int) throws(Invalid) -> [QueryValue] {
        var elements: [QueryValue] = []
        if next == ")" {
            index += 1
            return elements
        }
        while true {
            elements.append(try value(depth: depth + 1))
            guard try separated(closingWith: ")") else { return elements }
        }
    }

    /// After a member or element: true past a `,` (another follows), false past the closing `)`.
    private mutating func separated(closingWith close: Unicode.Scalar) throws(Invalid) -> Bool {
        let (more, problem) = Self.scanSeparator(next, closingWith: close)
        if let problem { throw invalid(problem) }
        index += 1
        return more
    }

    /// After a member or element, Rison's and JSON's grammar alike, at `next`: whether another follows (a `,`) or not
    /// (`close`), or what is wrong there.
    static func scanSeparator(_ next: Unicode.Scalar?, closingWith close: Unicode.Scalar) -> (more: Bool, problem: String?) {
        switch next {
        case ",": (true, nil)
        case close: (false, nil)
        case nil: (false, "\"\(close)\" is missing")
        case let other?: (false, "expected \",\" or \"\(close)\", found \"\(other)\"")
        }
    }

    /// After `'`: up to the closing `'`, with `!!` and `!'` read as `!` and `'`.
    private mutating func quoted() throws(Invalid) -> String {
        var text = String.UnicodeScalarView()
        while let scalar = next {
            index += 1
            switch scalar {
            case "'": return String(text)
            case "!":
                guard let escaped = next, escaped == "!" || escaped == "'" else { throw invalid("\"!\" in a string must be followed by \"!\" or \"'\"") }
                index += 1
                text.append(escaped)
            default: text.append(scalar)
            }
        }
        throw invalid("a string's closing \"'\" is missing")
    }

    /// `-?digits(.digits)?(e[+-]?digits)?`, kept as written.
    private mutating func number() throws(Invalid) -> String {
        let start = index
        let problem: String?
        (index, problem) = Self.scanNumber(scalars, from: start)
        if let problem { throw invalid(problem) }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    /// Where the number that starts at `start` ends, Rison's and JSON's grammar alike (`-?digits(.digits)?([eE][+-]?
    /// digits)?`), and what is wrong with it, if anything, at that end.
    static func scanNumber(_ scalars: [Unicode.Scalar], from start: Int) -> (end: Int, problem: String?) {
        var index = start
        func digits() -> Int {
            let from = index
            while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            return index - from
        }
        func next(_ scalar: Unicode.Scalar) -> Bool { index < scalars.count && scalars[index] == scalar }
        if next("-") { index += 1 }
        guard digits() > 0 else { return (index, "a number has no digits") }
        if next(".") {
            index += 1
            guard digits() > 0 else { return (index, "a number has no digits after \".\"") }
        }
        if next("e") || next("E") {
            index += 1
            if next("+") || next("-") { index += 1 }
            guard digits() > 0 else { return (index, "a number has no digits in its exponent") }
        }
        return (index, nil)
    }

    /// A bare string: the characters up to one Rison reserves.
    private mutating func id() throws(Invalid) -> String {
        let start = index
        while let scalar = next, !QueryValue.notIDChar.contains(scalar) { index += 1 }
        guard index > start else {
            throw invalid(next.map { "unexpected \"\($0)\"" } ?? "a value is missing")
        }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }
}
