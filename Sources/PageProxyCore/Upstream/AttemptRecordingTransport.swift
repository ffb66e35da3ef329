/// Counts every request a walk sends upstream in its `WalkRecord` (a retry is one more), so that `_explain` can say
/// how many retries each page took. It sits under the retries and above the network.
package struct AttemptRecordingTransport: UpstreamTransport {
    let base: any UpstreamTransport
    let record: WalkRecord

    package init(base: any UpstreamTransport, record: WalkRecord) {
        self.base = base
        self.record = record
    }

    package func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        record.attempted(request.url)
        return try await base.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes)
    }

    package var deadline: ContinuousClock.Instant? { base.deadline }
}
