#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import PageProxyCore

/// The soft limit on open descriptors is raised to the hard one at start.
@Suite struct OpenFileLimitTests {
    @Test("a soft limit below the hard one is raised to it (at most the ceiling), and never lowered")
    func raisesSoftToHard() throws {
        var original = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &original) == 0)
        defer { _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &original) }
        let target = min(UInt64(original.rlim_max), OpenFileLimit.ceiling)
        try #require(target > 512, "the hard limit here is too low to lower the soft one under it")
        var lowered = original
        lowered.rlim_cur = rlim_t(target - 256)
        try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered) == 0)
        #expect(OpenFileLimit.soft == target - 256)
        #expect(OpenFileLimit.raiseToHardLimit() == target)
        #expect(OpenFileLimit.soft == target)
        #expect(OpenFileLimit.raiseToHardLimit() == target)
    }
}
