import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A route's extra path is appended to its upstream base path: `SubpathCheck` refuses anything that could climb out.
@Suite struct SubpathCheckTests {
    @Test("a segment that is . or .. once decoded, stripped of ;params, normalised or decoded twice is refused", arguments: [
        "/..", "/.", "/a/../b", "/%2e%2e", "/%2E%2e", "/..;", "/..;jsessionid=1", "/.;x", "/%2e%2e%3b", "/%252e%252e",
        "/%ef%bc%8e%ef%bc%8e",
    ])
    func dotSegmentsAreRefused(subpath: String) {
        #expect(!SubpathCheck.isSafe(subpath))
    }

    @Test("a segment whose decoding fails is refused, whatever it holds", arguments: [
        "/..%2f..%2fetc%2fpasswd%ff", "/%2e%2e%ff", "/a%5c..%5c..%5cetc%ff", "/..%00%ff", "/%c0%ae%c0%ae", "/%c0%af",
        "/%e0%80%ae", "/%ed%a0%80", "/%zz", "/a%4", "/a%", "/%25c0%25ae",
    ])
    func undecodableSegmentsAreRefused(subpath: String) {
        #expect(!SubpathCheck.isSafe(subpath))
    }

    @Test("a segment holding a slash, backslash, NUL or control character once decoded is refused", arguments: [
        "/a%2Fb", "/a%5cb", "/a\\b", "/a%00b", "/a%0ab", "/a%0d%0ab", "/a%7fb", "/a%c2%85b", "/a%ef%bc%8fb", "/a%2500b",
    ])
    func separatorsAndControlsAreRefused(subpath: String) {
        #expect(!SubpathCheck.isSafe(subpath))
    }

    @Test("ordinary extra paths pass", arguments: [
        "", "/", "/x", "/sub%20dir/x", "/caf%C3%A9", "/100%25", "/a;b=1", "/...", "/.x", "/x..", "/a//b", "/%E2%9C%93",
    ])
    func ordinaryPathsPass(subpath: String) {
        #expect(SubpathCheck.isSafe(subpath))
    }
}
