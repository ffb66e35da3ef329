/// Polls until `value` has stayed the same for `samples` polls in a row (10 ms apart), for at most `limit`:
/// "the upstream requests stop growing", proven from a record, never by sleeping a fixed time.
func pollUntilSteady(_ what: String, samples: Int, limit: Duration = .seconds(60), _ value: () -> Int) async throws {
    var last = -1
    var unchanged = 0
    try await poll(what, limit: limit) {
        let current = value()
        unchanged = current == last ? unchanged + 1 : 0
        last = current
        return unchanged >= samples
    }
}
