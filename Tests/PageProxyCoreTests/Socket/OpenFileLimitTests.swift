#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

@testable import PageProxyCore

/// The soft limit on open descriptors is raised to the hard one at start.
@Suite struct OpenFileLimitTests {
    @Test("a soft limit below the hard one is raised to it (at most the ceiling), and never lowered (in a process of its own)")
    func raisesSoftToHard() async throws {
        // The limit is the process's: lowered here, it would fail suites running beside this one that open many files.
        let outcome = try await OwnProcessTest.run("raisesSoftToHardInItsOwnProcess")
        #expect(outcome.signal == nil && outcome.status == 0)
        #expect(outcome.finished)
    }

    /// The body of `raisesSoftToHard`, in its own process only.
    @Test(.enabled(if: OwnProcessTest.isChild))
    func raisesSoftToHardInItsOwnProcess() throws {
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
        OwnProcessTest.finish()
    }

    /// The size of this process's descriptor table (`FDSize` in /proc/self/status).
    private static var tableSize: Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("FDSize:") })
        else { return nil }
        return Int(line.dropFirst("FDSize:".count).trimmingCharacters(in: .whitespaces))
    }

    @Test("the descriptor table is grown at once to the size asked (within the soft limit), and stays so (in a process of its own)")
    func theDescriptorTableIsGrownAhead() async throws {
        // In a process of its own (review13 N9): there no other test holds the descriptor asked for, and the table
        // starts small, so the size checked is this call's doing, not an earlier test's.
        let outcome = try await OwnProcessTest.run("theDescriptorTableIsGrownAheadInItsOwnProcess")
        #expect(outcome.signal == nil && outcome.status == 0)
        #expect(outcome.finished)
    }

    /// The body of `theDescriptorTableIsGrownAhead`, in its own process only.
    @Test(.enabled(if: OwnProcessTest.isChild))
    func theDescriptorTableIsGrownAheadInItsOwnProcess() throws {
        let soft = try #require(OpenFileLimit.soft)
        let asked = Int(min(soft, 4096))
        #expect(try #require(Self.tableSize) < asked)
        let high = try #require(OpenFileLimit.growDescriptorTable(to: asked))
        #expect(high == Int32(asked - 1))
        #expect(try #require(Self.tableSize) >= asked)
        OwnProcessTest.finish()
    }
}
