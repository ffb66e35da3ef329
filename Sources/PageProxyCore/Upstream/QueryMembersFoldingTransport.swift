/// Sends each page with its `q.member` parameters folded back into the Rison or JSON `q` they were lifted from
/// (`QueryMembers`): the walk, its records and the page cache see `?q.page=3`, the upstream `?q=(page:3)`.
/// It sits under the retries, right above the network, so that every try of a page (and a collapsed fetch's) is folded.
package struct QueryMembersFoldingTransport: UpstreamTransport {
    let base: any UpstreamTransport
    let members: QueryMembers

    package init(base: any UpstreamTransport, members: QueryMembers) {
        self.base = base
        self.members = members
    }

    package func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        var folded = request
        folded.url = members.folding(request.url)
        return try await base.send(folded, timeout: timeout, maxBodyBytes: maxBodyBytes)
    }

    package var deadline: ContinuousClock.Instant? { base.deadline }
}
