import Foundation
import PageProxyCore
import Testing

@testable import PageProxy

/// attack13 U1: a command line with something extra or wrong says what, and exits 2 (usage) with the usage line.
@Suite struct CommandLineStrictnessTests {
    @Test("fetch with an extra argument names it, not \"name one route\"")
    func fetchNamesTheExtraArgument() async throws {
        let outcome = try await runPageProxy(["fetch", "h?x", "--config", "/nonexistent.json", "extra"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("\"extra\" is an extra argument"), "\(outcome.errors)")
        #expect(!outcome.errors.contains("name one route"))
    }

    @Test("an option given twice is a usage error, not the last one silently")
    func repeatedOptionIsAnError() async throws {
        let outcome = try await runPageProxy(["fetch", "h", "--format", "ndjson", "--format", "json"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("--format is given twice"), "\(outcome.errors)")
    }

    @Test("healthcheck says what is wrong: a port out of range, a port that is no number, an extra argument",
        arguments: [(["--port", "99999"], "must be a whole number in 1...65535, not \"99999\""),
                    (["--port", "abc"], "not \"abc\""), (["--port", "18509", "extra"], "\"extra\" is an extra argument")])
    func healthcheckSaysWhatIsWrong(arguments: [String], expected: String) async throws {
        let outcome = try await runPageProxy(["healthcheck"] + arguments)
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains(expected), "\(outcome.errors)")
        #expect(outcome.errors.contains("usage: healthcheck"))
    }

    @Test("--version with an extra argument is a usage error")
    func versionWithExtraArgument() async throws {
        let outcome = try await runPageProxy(["--version", "extra"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("\"extra\" is extra"), "\(outcome.errors)")
        #expect(outcome.errors.contains("Usage:"))
        #expect(outcome.output.isEmpty)
    }

    @Test("a 304 to a request without validators says that no validator was sent")
    func unaskedNotModifiedSaysSo() throws {
        let url = try #require(PageURL(string: "http://127.0.0.1:9/items?page=1"))
        let body = UpstreamErrorBody(UpstreamResponse(status: HTTPStatus(code: 304), headers: HTTPHeaders(), body: []))
        let response = PaginationErrorResponse(.upstreamStatus(page: 1, url: url, status: 304, body: body), route: "r")
        #expect(response.status == .badGateway)
        #expect(response.code == "upstream_status")
        #expect(response.message.contains("304 Not Modified, though PageProxy sent no validator (If-None-Match / If-Modified-Since)"))
    }
}
