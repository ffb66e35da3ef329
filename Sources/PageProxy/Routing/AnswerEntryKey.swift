import Foundation
import Glibc
import PageProxyCore

/// The key of a memoized answer's entry in the cache directory (`PersistedMergedAnswers`): a SHA-256, as a page's key
/// is, of what decides the answer's bytes (the memo's key input, `MergedAnswerMemo.keyInput`, with the window and
/// fields), of the route's configuration, and of the binary that built it. Another route configuration (another
/// items path, TTL, scheme, header …) or another build of PageProxy (whose walk may merge otherwise) never finds an
/// answer kept by this one: it walks, and the old entry is evicted as the least recently used. The key holds the
/// headers sent upstream only digested, as a page's key does.
enum AnswerEntryKey {
    /// The key of the answer whose memo input is digested as `inputDigest` (`digest`). A plan keeps the digest and asks
    /// for the key only when the memo is kept in the cache directory (issue 13, seventeenth pass: the route's
    /// fingerprint cost the first request after a restart ~1 ms with the memo off).
    static func make(route: RouteConfig, inputDigest: String) -> CacheKey? {
        let text = "PageProxy answer 2\u{0}\(binary)\u{0}\(fingerprint(route))\u{0}\(inputDigest)"
        return CacheKey(hex: SHA256.hex(SHA256.hash(Array(text.utf8))))
    }

    /// The digest of a memo input (`MergedAnswerMemo.keyInput` with the window and fields), which holds the headers
    /// sent upstream: a plan keeps no credential (loose12).
    static func digest(_ input: String) -> String { SHA256.hex(SHA256.hash(Array(input.utf8))) }

    /// Works out what every key of `routes` takes besides the request once, at the start: the first description of a
    /// type looks its conformances up in the runtime (~3 ms the first request after a restart paid, issue 13, sixteenth
    /// pass), and the binary's identity is read.
    static func prepare(_ routes: [RouteConfig]) {
        _ = binary
        for route in routes { _ = fingerprint(route) }
    }

    /// The running executable's device, inode, size and modification time: another build is another binary.
    static let binary: String = {
        var info = stat()
        guard stat("/proc/self/exe", &info) == 0 else { return "unknown" }
        return "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }()

    /// Every setting of the route, each spelled the same in every process (no set or dictionary in its order of the
    /// moment; the query members' text names sorted). Timeouts, retries, concurrency and the origin budget are in it
    /// too: they do not change the bytes, but a changed route is simply walked once more.
    static func fingerprint(_ route: RouteConfig) -> String {
        let members = route.queryMembers.map { members in
            "\(members.parameter)\u{1}\(members.members)\u{1}\(members.textMembers.sorted())\u{1}\(members.encoding.rawValue)"
        }
        let fields: [String] = [
            route.name, route.upstream.text, orderedSets("\(route.pagination)"), members ?? "-", route.itemsPath.description, "\(route.concurrency)",
            "\(route.maxPages)", "\(route.maxItems ?? -1)", "\(route.pageTimeout)", "\(route.totalTimeout)",
            route.headers.map { "\($0.name):\($0.value)" }.joined(separator: "\u{1}"), route.forwardHeaders.joined(separator: "\u{1}"),
            "\(route.ttl)", "\(route.staleIfError)", "\(route.maxPageBytes)", "\(route.retries)", route.caFile ?? "-",
            "\(route.maxMergedBytes)", "\(route.maxRetryAfter)",
        ]
        return fields.joined(separator: "\u{0}")
    }

    /// `text` with the members of every `Set([…])` in it sorted: a set prints in its order of the moment, which differs
    /// between processes (`endStatuses: Set([404, 410])`; review23 F5: such a route's answers were never found again).
    static func orderedSets(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "Set(["), let close = rest[open.upperBound...].range(of: "])") {
            let members = rest[open.upperBound..<close.lowerBound].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            result += rest[..<open.upperBound] + members.sorted().joined(separator: ", ") + "])"
            rest = rest[close.upperBound...]
        }
        return result + rest
    }
}
