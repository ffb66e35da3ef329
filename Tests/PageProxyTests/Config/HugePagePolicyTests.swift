import Testing

@testable import PageProxy

@Suite struct HugePagePolicyTests {
    @Test("PAGEPROXY_HUGE_PAGES: unset is auto; on, off and auto in any case; anything else names the variable and its values")
    func environment() throws {
        #expect(try HugePagePolicy.from(environment: [:]).get() == .auto)
        #expect(try HugePagePolicy.from(environment: ["PAGEPROXY_HUGE_PAGES": "ON"]).get() == .on)
        #expect(try HugePagePolicy.from(environment: ["PAGEPROXY_HUGE_PAGES": "off"]).get() == .off)
        #expect(try HugePagePolicy.from(environment: ["PAGEPROXY_HUGE_PAGES": "auto"]).get() == .auto)
        guard case .failure(let invalid) = HugePagePolicy.from(environment: ["PAGEPROXY_HUGE_PAGES": "yes"]) else {
            Issue.record("yes was taken")
            return
        }
        #expect(invalid.message == #"$PAGEPROXY_HUGE_PAGES: expected on, off or auto, not "yes""#)
    }
}
