/// Suspends until the calling task is cancelled: an upstream that never answers.
func untilCancelled() async {
    let (never, keep) = AsyncStream<Never>.makeStream()
    for await _ in never {}
    keep.finish()
}
