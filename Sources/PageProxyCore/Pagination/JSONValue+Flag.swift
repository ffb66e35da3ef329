extension JSONValue {
    /// A yes-or-no flag as APIs write one (`has_more`): a JSON boolean, or the string or number spelling of one
    /// (`"true"`, `"false"`, `1`, `0`; attack7: `"has_more": "true"` was read as no flag, so a walk ended after
    /// page 1). Nil for null, absence, or anything else.
    package var flag: Bool? {
        switch self {
        case .bool(let value): value
        case .string(let text):
            switch text.lowercased() {
            case "true", "1": true
            case "false", "0": false
            default: nil
            }
        case .number(let text): text == "1" ? true : text == "0" ? false : nil
        default: nil
        }
    }
}
