/// A JSON object of the configuration together with its field path, with typed, range-checked accessors
/// whose errors name the file and the field.
///
/// "Absent" and `null` differ: the plain accessors treat a missing key as "use the default" and `null` as a
/// type error; the `nullable…` accessors accept both as `nil`.
struct ConfigObject {
    let file: String
    /// The path of this object, e.g. `routes[0].pagination`; `""` for the document root.
    let path: String
    let members: [ConfigValue.Member]

    init(_ value: ConfigValue, path: String, file: String) throws(ConfigError) {
        guard case .object(let members) = value else {
            throw ConfigError(file: file, field: path, problem: "expected an object, found \(value.kind)")
        }
        self.file = file
        self.path = path
        self.members = members
        var seen: Set<String> = []
        for member in members where !seen.insert(member.key).inserted {
            throw error(member.key, "the key appears more than once")
        }
    }

    /// The path of a member, e.g. `routes[0].pagination.scheme`.
    func field(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    func error(_ key: String, _ problem: String) -> ConfigError {
        ConfigError(file: file, field: field(key), problem: problem)
    }

    subscript(key: String) -> ConfigValue? {
        members.first { $0.key == key }?.value
    }

    /// Rejects any key not in `allowed`, suggesting a close match; `explain` may give a better reason.
    func requireOnly(_ allowed: [String], explain: (String) -> String? = { _ in nil }) throws(ConfigError) {
        for member in members where !allowed.contains(member.key) {
            if let reason = explain(member.key) { throw error(member.key, reason) }
            var problem = "unknown key \"\(member.key)\""
            if let suggestion = Self.closest(to: member.key, in: allowed) {
                problem += "; did you mean \"\(suggestion)\"?"
            }
            problem += " Allowed keys: \(allowed.joined(separator: ", "))"
            throw error(member.key, problem)
        }
    }

    // MARK: Strings

    func string(_ key: String, default fallback: String) throws(ConfigError) -> String {
        guard let value = self[key] else { return fallback }
        guard case .string(let text) = value else { throw error(key, "expected a string, found \(value.summary)") }
        return text
    }

    func requiredString(_ key: String) throws(ConfigError) -> String {
        guard self[key] != nil else { throw error(key, "is required") }
        return try string(key, default: "")
    }

    func nonEmptyString(_ key: String, default fallback: String) throws(ConfigError) -> String {
        let text = try string(key, default: fallback)
        guard !text.isEmpty else { throw error(key, "must not be empty") }
        return text
    }

    /// Absent → `fallback`; `null` → `nil`.
    func nullableString(_ key: String, default fallback: String?) throws(ConfigError) -> String? {
        if self[key] == .null { return nil }
        guard self[key] != nil else { return fallback }
        return try string(key, default: "")
    }

    // MARK: Numbers and booleans

    func integer(_ key: String, in range: ClosedRange<Int>, default fallback: Int) throws(ConfigError) -> Int {
        guard let value = self[key] else { return fallback }
        guard case .integer(let number) = value else {
            throw error(key, "expected \(Self.describe(range)), found \(value.summary)")
        }
        guard range.contains(number) else { throw error(key, "expected \(Self.describe(range)), found \(number)") }
        return number
    }

    /// Absent or `null` → `nil`.
    func nullableInteger(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let value = self[key], value != .null else { return nil }
        return try integer(key, in: range, default: 0)
    }

    /// Absent or `null` → `nil`; an integer or a fractional number in `range`.
    func nullableNumber(_ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let value = self[key], value != .null else { return nil }
        let number: Double
        switch value {
        case .integer(let integer): number = Double(integer)
        case .number(let fractional): number = fractional
        default: throw error(key, "expected a number from \(range.lowerBound) to \(range.upperBound) or null, found \(value.summary)")
        }
        guard range.contains(number) else {
            throw error(key, "expected a number from \(range.lowerBound) to \(range.upperBound), found \(number)")
        }
        return number
    }

    func seconds(_ key: String, in range: ClosedRange<Int>, default fallback: Int) throws(ConfigError) -> Duration {
        .seconds(try integer(key, in: range, default: fallback))
    }

    func bool(_ key: String, default fallback: Bool) throws(ConfigError) -> Bool {
        guard let value = self[key] else { return fallback }
        guard case .bool(let flag) = value else { throw error(key, "expected true or false, found \(value.summary)") }
        return flag
    }

    // MARK: Containers

    /// Absent → `nil`; `null` too when `nullable`.
    func object(_ key: String, nullable: Bool = false) throws(ConfigError) -> ConfigObject? {
        guard let value = self[key] else { return nil }
        if nullable && value == .null { return nil }
        return try ConfigObject(value, path: field(key), file: file)
    }

    func array(_ key: String) throws(ConfigError) -> [ConfigValue]? {
        guard let value = self[key] else { return nil }
        guard case .array(let elements) = value else { throw error(key, "expected an array, found \(value.kind)") }
        return elements
    }

    // MARK: Helpers

    static func describe(_ range: ClosedRange<Int>) -> String {
        switch (range.lowerBound, range.upperBound) {
        case (0, Int.max): "an integer ≥ 0"
        case (1, Int.max): "an integer ≥ 1"
        case (let low, Int.max): "an integer ≥ \(low)"
        case (let low, let high): "an integer in \(low)...\(high)"
        }
    }

    /// The candidate nearest to `word` if it is close enough to be a likely typo or abbreviation.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        let tolerance = word.count <= 3 ? 1 : max(2, min(3, word.count / 3))
        if let best, best.distance <= tolerance { return best.candidate }
        guard lowered.count >= 3 else { return nil }
        return candidates.first { $0.lowercased().hasPrefix(lowered) || lowered.hasPrefix($0.lowercased()) }
    }

    /// Edit distance over characters where swapping two neighbours counts as one edit
    /// (optimal string alignment).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
