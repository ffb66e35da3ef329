import Foundation
import PageProxyCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `PageProxy fetch`, run as a user runs it against the mock: the items on standard output (nothing else), and an
/// exit status for each outcome.
@Suite struct FetchCommandTests {
    /// Runs `fetch` with a config whose routes `gh` (Link header) and `drf` (offset) name the stack's mock; no cache,
    /// no retries.
    private func fetch(_ arguments: [String], stack: TestStack) async throws -> CommandOutcome {
        let file = try writeConfig(stack)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await runPageProxy(["fetch"] + arguments + ["--config", file.path])
    }

    private func writeConfig(_ stack: TestStack) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-fetch-\(UUID().uuidString).json")
        let mock = "http://127.0.0.1:\(stack.mockPort)"
        try Data(
            """
            {"cache": {"maxBytes": 0}, "routes": [
              {"name": "gh", "upstream": "\(mock)/github/items", "pagination": {"scheme": "link-header", "pageSize": 10}, "retries": 0},
              {"name": "drf", "upstream": "\(mock)/drf/items/", "pagination": {"scheme": "offset", "limit": 10, "totalItemsPath": "count"},
               "items": "results", "retries": 0}
            ]}
            """.utf8
        ).write(to: file)
        return file
    }

    @Test func writesTheMergedItemsAndNothingElse() async throws {
        try await TestStack.run { stack in
            let outcome = try await fetch(["gh?mock_total=25"], stack: stack)
            #expect(outcome.status == 0, "\(outcome.errors)")
            #expect(Array(outcome.output.utf8) == MockDataset.mergedJSON(total: 25))
            // Standard error is not a terminal here: no progress line, no log.
            #expect(outcome.errors.isEmpty)
            #expect(stack.mock.log.count == 3)
        }
    }

    @Test func writesNDJSONAndHonoursTheControls() async throws {
        try await TestStack.run { stack in
            let outcome = try await fetch(["/drf?mock_total=45&_offset=20&_limit=3&_fields=id", "--format", "ndjson"], stack: stack)
            #expect(outcome.status == 0, "\(outcome.errors)")
            #expect(outcome.output == "{\"id\":21}\n{\"id\":22}\n{\"id\":23}\n")
            #expect(stack.mock.log.count == 1)
        }
    }

    @Test func writesToAFileWhenAsked() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-fetch-out-\(UUID().uuidString).ndjson")
        defer { try? FileManager.default.removeItem(at: output) }
        try await TestStack.run { stack in
            let outcome = try await fetch(["gh?mock_total=12", "--format", "ndjson", "--output", output.path], stack: stack)
            #expect(outcome.status == 0, "\(outcome.errors)")
            #expect(outcome.output.isEmpty)
            #expect(Array(try Data(contentsOf: output)) == MockDataset.ndjson(total: 12))
        }
    }

    /// attack12 U5: `--output -` wrote a file named `-` and nothing to standard output; curl and wget read `-` as
    /// standard output.
    @Test func outputDashIsStandardOutput() async throws {
        let dash = FileManager.default.currentDirectoryPath + "/-"
        let existed = FileManager.default.fileExists(atPath: dash)
        defer { if !existed { try? FileManager.default.removeItem(atPath: dash) } }
        try await TestStack.run { stack in
            let outcome = try await fetch(["gh?mock_total=25", "--output", "-"], stack: stack)
            #expect(outcome.status == 0, "\(outcome.errors)")
            #expect(Array(outcome.output.utf8) == MockDataset.mergedJSON(total: 25))
            #expect(existed || !FileManager.default.fileExists(atPath: dash))
        }
    }

    /// attack12 U5: `--format json` with the query's `_format=ndjson` wrote NDJSON without a word (the query won).
    /// Formats that disagree are a usage error naming both; formats that agree are fine.
    @Test func aFormatFlagThatDisagreesWithTheQueryIsAUsageError() async throws {
        try await TestStack.run { stack in
            let both = try await fetch(["gh?mock_total=5&_format=ndjson", "--format", "json"], stack: stack)
            #expect(both.status == 2, "\(both.errors)")
            #expect(both.errors.contains("--format json and the query's _format=ndjson"), "\(both.errors)")
            #expect(both.output.isEmpty && stack.mock.log.count == 0)
            let spelled = try await fetch(["gh?_format=NDJSON", "--format", "json"], stack: stack)
            #expect(spelled.status == 2 && spelled.errors.contains("_format=NDJSON"), "\(spelled.errors)")
            let agree = try await fetch(["gh?mock_total=5&_format=ndjson", "--format", "ndjson"], stack: stack)
            #expect(agree.status == 0, "\(agree.errors)")
            #expect(Array(agree.output.utf8) == MockDataset.ndjson(total: 5))
        }
    }

    /// attack11 U3: an output file that cannot be opened is named with the reason, not "cannot write PATH" alone.
    @Test func anOutputFileThatCannotBeOpenedSaysWhy() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-no-such-\(UUID().uuidString)/x.json").path
        try await TestStack.run { stack in
            let outcome = try await fetch(["gh?mock_total=3", "--output", missing], stack: stack)
            #expect(outcome.status != 0)
            #expect(outcome.errors.contains("cannot write \(missing): No such file or directory"), "\(outcome.errors)")
            let directory = try await fetch(["gh?mock_total=3", "--output", FileManager.default.temporaryDirectory.path], stack: stack)
            #expect(directory.errors.contains("Is a directory"), "\(directory.errors)")
            // A write that fails (a full disk) is the same kind of message and exit 1, not a crash (FileHandle's
            // write stopped the process with "Illegal instruction"), for a merged answer and a stream alike.
            for format in ["json", "ndjson"] where FileManager.default.fileExists(atPath: "/dev/full") {
                let full = try await fetch(["gh?mock_total=25", "--format", format, "--output", "/dev/full"], stack: stack)
                #expect(full.status == 1, "\(format): \(full.errors)")
                #expect(full.errors.contains("cannot write /dev/full: No space left on device"), "\(format): \(full.errors)")
            }
        }
    }

    @Test("exit statuses: upstream error 3, bad request 4, partial 5, usage 2, config 1")
    func exitStatuses() async throws {
        try await TestStack.run { stack in
            let upstream = try await fetch(["gh?mock_total=25&mock_fault=status500@2"], stack: stack)
            #expect(upstream.status == 3, "\(upstream.errors)")
            #expect(upstream.output.isEmpty)
            #expect(upstream.errors.contains("upstream_status"))
            let unknown = try await fetch(["nope"], stack: stack)
            #expect(unknown.status == 4)
            #expect(unknown.errors.contains("unknown_route"))
            let control = try await fetch(["gh?_fields=a..b"], stack: stack)
            #expect(control.status == 4)
            #expect(control.errors.contains("invalid_control"))
            // The first page's items were written; the second page was bad.
            let partial = try await fetch(["gh?mock_total=25&mock_fault=malformed@2", "--format", "ndjson"], stack: stack)
            #expect(partial.status == 5, "\(partial.errors)")
            #expect(Array(partial.output.utf8) == MockDataset.ndjson(total: 10))
            #expect(partial.errors.contains("upstream_invalid_json"))
            let usage = try await fetch([], stack: stack)
            #expect(usage.status == 2)
            #expect(usage.errors.contains("usage: PageProxy fetch"))
            let format = try await fetch(["gh", "--format", "xml"], stack: stack)
            #expect(format.status == 2)
        }
        let config = try await runPageProxy(["fetch", "demo", "--config", "/nonexistent/config.json"])
        #expect(config.status == 1)
    }

    @Test("a reader that leaves (fetch … | head) ends fetch quietly with 141, as a shell reports a producer SIGPIPE ended")
    func aReaderThatLeavesEndsFetchQuietly() async throws {
        try await TestStack.run { stack in
            let file = try writeConfig(stack)
            defer { try? FileManager.default.removeItem(at: file) }
            for format in ["json", "ndjson"] {
                let output = Pipe()
                let errors = Pipe()
                let process = try await ChildProcess(
                    executable: ProxyProcess.binary, arguments: ["fetch", "gh?mock_total=500", "--format", format, "--config", file.path],
                    standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor),
                    standardError: .descriptor(errors.fileHandleForWriting.fileDescriptor))
                try output.fileHandleForWriting.close()
                try errors.fileHandleForWriting.close()
                // The reader leaves before the first byte: every write is EPIPE (the command ignores SIGPIPE).
                try output.fileHandleForReading.close()
                try await poll("fetch exits", limit: .seconds(30)) { !process.isRunning }
                let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                #expect(process.terminationStatus == 141, "\(format): \(errorText)")
                #expect(errorText.isEmpty, "\(format): \(errorText)")
            }
        }
    }

    @Test func theHelpNamesTheExitStatuses() async throws {
        let outcome = try await runPageProxy(["--help"])
        #expect(outcome.output.contains("PageProxy fetch ROUTE[/path][?query]"))
        #expect(outcome.output.contains("5 partial"))
        #expect(outcome.output.contains("141 the output's reader left"))
    }

    @Test func theProgressLineSaysPagesItemsRateAndTimeLeft() {
        let progress = WalkRecord.Progress(pages: 5, items: 100, pagesKnown: 13, totalItems: 250, elapsed: .seconds(2))
        #expect(FetchProgressLine.text(progress) == "pages 5/13  items 100/250  50 items/s  elapsed 0:02  left 0:03")
        let open = WalkRecord.Progress(pages: 2, items: 40, pagesKnown: nil, totalItems: nil, elapsed: .seconds(4000))
        #expect(FetchProgressLine.text(open) == "pages 2  items 40  0 items/s  elapsed 1:06:40")
    }

    @Test("on a terminal, standard error shows the progress line; the items still go to standard output")
    func aTerminalGetsTheProgressLine() async throws {
        var primary: Int32 = -1
        var secondary: Int32 = -1
        try #require(openpty(&primary, &secondary, nil, nil, nil) == 0)
        // Read without blocking: a missing progress line must fail the test, not hang it.
        _ = fcntl(primary, F_SETFL, fcntl(primary, F_GETFL) | O_NONBLOCK)
        defer { close(primary) }
        try await TestStack.run { stack in
            let file = try writeConfig(stack)
            defer { try? FileManager.default.removeItem(at: file) }
            let output = Pipe()
            let process = try await ChildProcess(
                executable: ProxyProcess.binary, arguments: ["fetch", "gh?mock_total=30", "--config", file.path],
                standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor), standardError: .descriptor(secondary))
            try output.fileHandleForWriting.close()
            close(secondary)
            try await poll("fetch exits", limit: .seconds(30)) { !process.isRunning }
            #expect(process.terminationStatus == 0)
            #expect(Array(output.fileHandleForReading.readDataToEndOfFile()) == MockDataset.mergedJSON(total: 30))
            // The kernel hands a pty's bytes to the reading side from a worker thread: after the exit, some may still
            // be on their way (seen under load), so read until the last drawing is there, within a bound.
            var shown = ""
            try await poll("the progress line reaches the terminal", limit: .seconds(10)) {
                var bytes = [UInt8](repeating: 0, count: 65536)
                let count = read(primary, &bytes, bytes.count)
                shown += String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
                return shown.contains("pages 3/3  items 30  ")
            }
            // The last drawing is the walk's end: 3 pages of 3 (a rel="last" walk knows its count), 30 items.
            #expect(shown.contains("pages 3/3  items 30  "), "\(shown)")
            // The time shown is the walk's own: any duration (a loaded machine takes seconds), never a timing check.
            #expect(shown.contains(/elapsed \d+:\d\d/), "\(shown)")
        }
    }
}
