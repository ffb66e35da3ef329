import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `PageProxy probe URL`, run as a user runs it, against the mock's wire formats.
@Suite struct ProbeCommandTests {
    @Test("probe prints what it detected and a route that check-config accepts",
          arguments: [("drf-pages", "next-url", "results"), ("github", "link-header", "$"), ("slack", "cursor", "members"), ("smorest", "page-number", "$"),
                      ("stripe", "has-more", "data")])
    func printsARoute(service: String, scheme: String, items: String) async throws {
        try await TestStack.run { stack in
            let url = "http://127.0.0.1:\(stack.mockPort)/\(service)/items"
            let outcome = try await runPageProxy(["probe", url, "--header", "Authorization: Bearer secret-token"])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.output.contains("scheme   \(scheme)"))
            #expect(outcome.output.contains("items    \(items) (\(SchemeRoutes.pageSize) on this page)"))
            // The credential is not echoed: the route names an environment variable instead.
            #expect(!outcome.output.contains("secret-token"))
            let route = try #require(outcome.output.range(of: "{ \"name\"").map { String(outcome.output[$0.lowerBound...]) })
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-probe-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(#"{"routes":[\#(route)]}"#.utf8).write(to: file)
            let check = try await runPageProxy(["check-config", file.path])
            #expect(check.status == 1 && check.errors.contains("AUTHORIZATION"), "the ${AUTHORIZATION} placeholder must be set")
            let checked = try await runPageProxy(["check-config", file.path], environment: ["AUTHORIZATION": "Bearer x"])
            #expect(checked.status == 0, "\(route)\n\(checked.errors)")
            #expect(checked.output.contains("(\(scheme))"))
        }
    }

    /// real19 F1: probe refused Reddit's listing while serve answered its first page as the list; both detect it now,
    /// and the route probe prints (Zendesk's with its `morePath`, Notion's `start_cursor`) is one check-config accepts.
    @Test("probe on Reddit, Zendesk and Notion prints the route auto walks, and check-config accepts it",
          arguments: [("/reddit/items?limit=10", #""cursorPath":"data.after","cursorParameter":"after""#),
                      (MockService.zendesk.path + "?page[size]=10", #""nextPath":"links.next","morePath":"meta.has_more""#),
                      ("/notion/items?page_size=10", #""cursorParameter":"start_cursor","morePath":"has_more""#),
                      // real20 F1: Roundup's next link inside an array.
                      ("/roundup/items?@page_size=10", #""nextPath":"data.@links.next.0.uri""#),
                      // real20 F1, F2: MediaWiki's continue object, every member sent back.
                      ("/mediawiki/items?action=query&list=allpages&aplimit=10", #""cursorObjectPath":"continue""#)])
    func probeAgreesWithServe(path: String, fields: String) async throws {
        try await TestStack.run { stack in
            let outcome = try await runPageProxy(["probe", "http://127.0.0.1:\(stack.mockPort)\(path)&mock_total=25"])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.output.contains(fields), "\(outcome.output)")
            let route = try #require(outcome.output.range(of: "{ \"name\"").map { String(outcome.output[$0.lowerBound...]) })
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-probe-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(#"{"routes":[\#(route)]}"#.utf8).write(to: file)
            let checked = try await runPageProxy(["check-config", file.path])
            #expect(checked.status == 0, "\(route)\n\(checked.errors)")
        }
    }

    /// retest19 F4: probe says whether a first page holds a flag at the morePath a route names (`--more-path`), and
    /// shows the one it detected.
    @Test("probe --more-path: a misspelt path is absent, a cursor is no boolean, a right one is true; the detected one shown")
    func probeSaysWhatMorePathHolds() async throws {
        try await TestStack.run { stack in
            let url = "http://127.0.0.1:\(stack.mockPort)\(MockService.zendesk.path)?page[size]=10&mock_total=25"
            let detected = try await runPageProxy(["probe", url])
            #expect(detected.output.contains("more     meta.has_more is true on this page"), "\(detected.output)")
            let misspelt = try await runPageProxy(["probe", url, "--more-path", "meta.hasmore"])
            #expect(misspelt.status == 0, "\(misspelt.errors)")
            #expect(misspelt.output.contains("more     meta.hasmore is absent on this page"), "\(misspelt.output)")
            let cursor = try await runPageProxy(["probe", url, "--more-path", "meta.after_cursor"])
            #expect(cursor.output.contains("more     meta.after_cursor holds"), "\(cursor.output)")
            #expect(cursor.output.contains("not true or false"), "\(cursor.output)")
            // retest20 #5: the scheme's next link (or a path holding it) and the items are refused by check-config and
            // serve, and probe says so (it called them a warning).
            let next = try await runPageProxy(["probe", url, "--more-path", "links"])
            #expect(next.output.contains(#"more     links overlaps the nextPath "links.next": check-config and serve refuse it"#),
                    "\(next.output)")
            let items = try await runPageProxy(["probe", url, "--more-path", "activities"])
            #expect(items.output.contains("more     activities is also the route's items: check-config and serve refuse it"),
                    "\(items.output)")
            let bad = try await runPageProxy(["probe", url, "--more-path", ""])
            #expect(bad.status == 2, "\(bad.errors)")
        }
    }

    /// attack11 U4: a first page that redirects (Django's APPEND_SLASH) is named in the route as the redirect's
    /// target, so walks do not begin with a redirect each time.
    @Test func probeSuggestsTheURLARedirectEndsAt() async throws {
        try await TestStack.run { stack in
            let mock = "http://127.0.0.1:\(stack.mockPort)"
            let outcome = try await runPageProxy(["probe", "\(mock)/drf/items?page_size=5"])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.output.contains("moved    to \(mock)/drf/items/?page_size=5"), "\(outcome.output)")
            #expect(outcome.output.contains(#""upstream": "\#(mock)/drf/items/?page_size=5""#), "\(outcome.output)")
            let direct = try await runPageProxy(["probe", "\(mock)/drf/items/"])
            #expect(!direct.output.contains("moved"), "\(direct.output)")
            #expect(direct.output.contains(#""upstream": "\#(mock)/drf/items/""#), "\(direct.output)")
        }
    }

    @Test("probe hides the token it sent when a redirect elsewhere carries it, percent-encoded (attack14 M5)")
    func probeHidesTheTokenARedirectCarries() async throws {
        try await TestStack.run { stack in
            let url = "http://127.0.0.1:\(stack.mockPort)/plain/items?mock_leak_to=127.0.0.2:9"
            let outcome = try await runPageProxy(["probe", url, "--header", "Authorization: Bearer pr0be-S3CRET/x"])
            #expect(outcome.status == 1)
            #expect(outcome.errors.contains("127.0.0.2:9/?x=REDACTED"), "\(outcome.errors)")
            #expect(!(outcome.output + outcome.errors).contains("S3CRET"), "\(outcome.output)\(outcome.errors)")
        }
    }

    @Test("a page that holds the whole total it states is one page: exit 0, an auto route check-config accepts (review24 P5)")
    func onePageWithItsWholeTotal() async throws {
        try await TestStack.run { stack in
            let outcome = try await runPageProxy(["probe", "http://127.0.0.1:\(stack.mockPort)/wrapped/items?mock_total=5"])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.output.contains("one page: it holds every item of the total it states (5 of 5)"), "\(outcome.output)")
            #expect(!outcome.output.contains("cannot tell"))
            let route = try #require(outcome.output.range(of: "{ \"name\"").map { String(outcome.output[$0.lowerBound...]) })
            #expect(route.contains(#""pagination": {"scheme":"auto"}"#), "\(route)")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-probe-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(#"{"routes":[\#(route)]}"#.utf8).write(to: file)
            let checked = try await runPageProxy(["check-config", file.path])
            #expect(checked.status == 0, "\(route)\n\(checked.errors)")
        }
    }

    @Test("probe says when it cannot tell, and exits 1", arguments: ["plain", "wrapped"])
    func cannotTell(service: String) async throws {
        try await TestStack.run { stack in
            let outcome = try await runPageProxy(["probe", "http://127.0.0.1:\(stack.mockPort)/\(service)/items"])
            #expect(outcome.status == 1)
            #expect(outcome.output.contains("cannot tell"))
            #expect(!outcome.output.contains("A route for config.json"))
        }
    }

    /// attack12 L3: a `--header` value with a line break went out as two header fields (exit 0); check-config
    /// refuses the same value in a route's `headers`. (A NUL cannot be in an argument: argv strings end at one.)
    @Test(arguments: ["X-A: a\r\nX-B: b", "X-A: a\nX-B: b", "X-A: a\u{1}b", "Bad Name: v", "Host: elsewhere"])
    func headerThatCheckConfigRefusesIsAUsageError(header: String) async throws {
        try await TestStack.run { stack in
            let outcome = try await runPageProxy(["probe", "http://127.0.0.1:\(stack.mockPort)/github/items", "--header", header])
            #expect(outcome.status == 2, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.errors.contains("--header:") && outcome.errors.contains("usage: PageProxy probe URL"))
            #expect(stack.mock.log.count == 0)
        }
    }

    /// attack12 U4: the first line redacted a secret query value that the `next` line and the route printed in
    /// clear; now no line shows it, and probe says the route needs the real value.
    @Test func secretQueryValuesAreRedactedOnEveryLine() async throws {
        try await TestStack.run { stack in
            let url = "http://127.0.0.1:\(stack.mockPort)/github/items?token=sekrit-456&api_key=k9k9k9&per_page=5"
            let outcome = try await runPageProxy(["probe", url])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(stack.mock.log.requests.first?.target.contains("token=sekrit-456") == true, "the upstream gets the real value")
            #expect(!outcome.output.contains("sekrit-456") && !outcome.output.contains("k9k9k9"), "\(outcome.output)")
            #expect(outcome.output.contains("?token=REDACTED&api_key=REDACTED&per_page=5&page=2"), "\(outcome.output)")
            #expect(outcome.output.contains(#""upstream": "http://127.0.0.1:\#(stack.mockPort)/github/items?token=REDACTED&api_key=REDACTED&per_page=5""#))
            #expect(outcome.output.contains("shown as REDACTED, in the route too"))
            let plain = try await runPageProxy(["probe", "http://127.0.0.1:\(stack.mockPort)/github/items?per_page=5"])
            #expect(plain.status == 0 && !plain.output.contains("REDACTED"), "no note when nothing was redacted")
        }
    }

    /// attack12 U4: `user:password@` in the URL was dropped without a word (a real upstream then answers 401).
    @Test func userInfoInTheURLIsSaidNotToBeSent() async throws {
        try await TestStack.run { stack in
            let outcome = try await runPageProxy(["probe", "http://alice:pw-secret@127.0.0.1:\(stack.mockPort)/github/items"])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.errors.contains("are not sent") && outcome.errors.contains("--header 'Authorization: Basic"))
            #expect(!outcome.errors.contains("pw-secret") && !outcome.output.contains("pw-secret"))
            #expect(stack.mock.log.requests.first.map { $0.header("Authorization") == nil } == true)
            let plain = try await runPageProxy(["probe", "http://127.0.0.1:\(stack.mockPort)/github/items"])
            #expect(!plain.errors.contains("not sent"))
        }
    }

    @Test("probe without a URL is a usage error")
    func usage() async throws {
        let outcome = try await runPageProxy(["probe"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("usage: PageProxy probe URL"))
    }

    /// attack16 L5 and M2: probe's route set `page=1` in `upstream` (every client's `?page=2` then a 400), and printed
    /// an `X-Api-Password` header in clear.
    @Test("probe's route leaves out the page number it was given, and names a password header as a variable")
    func routeLeavesOutThePageNumberAndHidesAPassword() async throws {
        try await TestStack.run { stack in
            let url = "http://127.0.0.1:\(stack.mockPort)/smorest/items?page=1&mine=1"
            let outcome = try await runPageProxy(["probe", url, "--header", "X-Api-Password: pw-secret-1"])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.output.contains(#""upstream": "http://127.0.0.1:\#(stack.mockPort)/smorest/items?mine=1""#), "\(outcome.output)")
            #expect(!outcome.output.contains("pw-secret-1"), "\(outcome.output)")
            #expect(outcome.output.contains("${X_API_PASSWORD}"), "\(outcome.output)")
        }
    }
}
