/// How much the proxy logs; each level includes the ones above it.
enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    private var severity: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }

    static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.severity < rhs.severity
    }
}
