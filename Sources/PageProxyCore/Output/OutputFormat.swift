/// The two shapes of an aggregated answer.
package enum OutputFormat: String, Sendable, CaseIterable {
    /// One JSON array of every item, answered once every page has arrived.
    case json
    /// One item per line, streamed as pages arrive.
    case ndjson

    package var contentType: String {
        switch self {
        case .json: "application/json; charset=utf-8"
        case .ndjson: "application/x-ndjson"
        }
    }
}
