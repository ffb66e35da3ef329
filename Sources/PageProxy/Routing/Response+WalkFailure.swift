import PageProxyCore
import PageProxyServer

extension Response {
    /// Answers a walk that failed before anything was sent; a walk whose client left gets no answer and no error.
    consuming func send(walkFailure error: PaginationError, plan: RequestPlan, recording record: RequestRecord) async -> RequestRecord {
        guard !PaginationErrorResponse.isCancellation(error) else {
            abandon()
            return record
        }
        return await send(plan.failure(error), recording: record)
    }
}
