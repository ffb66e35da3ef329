import Testing

@testable import PageProxy

@Suite struct ServerTimingFieldTests {
    @Test("upstream, cache and total in milliseconds with one decimal, rounded down")
    func value() {
        #expect(ServerTimingField.value(upstream: .zero, cache: .zero, total: .zero) == "upstream;dur=0.0, cache;dur=0.0, total;dur=0.0")
        #expect(
            ServerTimingField.value(upstream: .microseconds(12_345), cache: .microseconds(409), total: .microseconds(15_199))
                == "upstream;dur=12.3, cache;dur=0.4, total;dur=15.1")
        #expect(
            ServerTimingField.value(upstream: .seconds(3_600), cache: .seconds(86_400 * 365), total: .milliseconds(100))
                == "upstream;dur=3600000.0, cache;dur=31536000000.0, total;dur=100.0")
        #expect(ServerTimingField.milliseconds(.microseconds(1_050)) == "1.0")
    }
}
