import PageProxyCore
import PageProxyServer

/// How a renderer ended a walk's answer: answered, or declined with nothing sent and nothing counted, the response
/// handed back (a walk of pages in memory that came to a page it would have to fetch; issue 13).
enum WalkAnswer: ~Copyable {
    case answered(RequestRecord)
    case declined(Response)

    /// The record of an answer that could not be declined (its walk may fetch): a decline there is a bug, answered 500.
    consuming func record(route: String) async -> RequestRecord {
        switch consume self {
        case .answered(let record): return record
        case .declined(let response):
            return await response.send(
                HTTPError(.internalServerError, code: "internal_error", message: "a walk that may fetch declined its answer"),
                recording: RequestRecord(route: route))
        }
    }
}
