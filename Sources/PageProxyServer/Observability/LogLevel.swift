/// How much the proxy logs; each level includes the ones above it.
package enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    private var severity: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }

    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.severity < rhs.severity
    }
}
