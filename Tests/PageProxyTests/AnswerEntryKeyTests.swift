import Testing

@testable import PageProxy

/// The route fingerprint in an answer entry's key is spelled the same in every process (review23 F5: a route with two
/// `endStatuses` printed its set in the order of the moment, so its answers were never found after a restart).
@Suite struct AnswerEntryKeyTests {
    @Test("Every Set([…]) in a description is written with its members sorted; the rest is kept")
    func setsAreOrdered() {
        #expect(AnswerEntryKey.orderedSets("a: Set([416, 404, 410]), b: 1, c: Set([\"y\", \"x\"])") == "a: Set([404, 410, 416]), b: 1, c: Set([\"x\", \"y\"])")
        #expect(AnswerEntryKey.orderedSets("no sets (here)") == "no sets (here)")
        #expect(AnswerEntryKey.orderedSets("Set([404])") == "Set([404])")
    }
}
