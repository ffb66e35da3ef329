/// Fault injection, chosen per request with `mock_fault=KIND@K[,KIND@K…]`.
///
/// `K` is the 1-based index of the page in a walk (for offset- and cursor-based services,
/// `offset / pageSize + 1`).
package struct MockFaults: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        /// Page K answers 500, every time.
        case status500
        /// Page K answers 500 the first time its exact target is asked, then normally.
        case transient500
        /// Page K answers 408 the first time its exact target is asked, then normally.
        case transient408
        /// Page K answers 522 (Cloudflare's "connection timed out") the first time its exact target is asked.
        case transient522
        /// Page K answers 501, every time.
        case status501
        /// Page K answers 503 with a 2 MiB error body the first time its exact target is asked, then normally: an
        /// error page larger than a route's `maxPageBytes`.
        case big503
        /// Page K answers 429 with `Retry-After: 1` the first time its exact target is asked.
        case status429
        /// Page K answers 403 with GitHub's secondary-rate-limit body, every time (a 4xx after the first page).
        case status403
        /// Page K's body is cut short (invalid JSON); `Content-Length` matches the cut body.
        case malformed
        /// Page K's next link (or cursor) points back to page 1.
        case loop
        /// Page K's next link points to `http://127.0.0.2:<same port>` — another origin.
        case foreign
        /// Page K's next link names page K again under a new URL (`mock_again=N+1`, a parameter the services
        /// ignore): an upstream that ignores the cursor or link it sent (Eve's relative hrefs sent back as a cursor,
        /// real10). Services with a next link in the body or a header (drf-pages, drf-link, kinto).
        case repeatPage
        /// Page K waits 60 s before answering; cancelling the task ends the wait.
        case stall
        /// Page K's connection is closed halfway through its body (a reset mid-body), every time.
        case reset
    }

    package struct Fault: Sendable, Equatable {
        package var kind: Kind
        package var page: Int
    }

    /// How a page's next link is written.
    package enum NextLink: Sendable, Equatable {
        case normal
        /// Points back to page 1 (present even on the last page).
        case loop
        /// Points to the same target on another origin (present even on the last page).
        case foreign
        /// Points to this very page, with `mock_again` one more than the request's (present even on the last page).
        case again
    }

    package var faults: [Fault]

    /// Largest page index a fault may name (keeps "next page" arithmetic far from overflow).
    package static let maxPage = 1_000_000_000

    package init(_ faults: [Fault] = []) {
        self.faults = faults
    }

    /// Parses the value of `mock_fault`; nil when any entry is malformed.
    /// A missing or empty value means no faults.
    package init?(parsing text: String?) {
        guard let text, !text.isEmpty else {
            self.init()
            return
        }
        var faults: [Fault] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = entry.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2,
                let kind = Kind(rawValue: String(parts[0]).trimmingSpaces()),
                let page = Int(String(parts[1]).trimmingSpaces()), (1...Self.maxPage).contains(page)
            else { return nil }
            faults.append(Fault(kind: kind, page: page))
        }
        self.init(faults)
    }

    /// True when `kind` is requested for page index `page`.
    package func has(_ kind: Kind, page: Int) -> Bool {
        faults.contains { $0.kind == kind && $0.page == page }
    }

    /// How page `page` writes its next link.
    package func nextLink(page: Int) -> NextLink {
        if has(.loop, page: page) { return .loop }
        if has(.foreign, page: page) { return .foreign }
        if has(.repeatPage, page: page) { return .again }
        return .normal
    }

    /// `body` cut to half its length (at least one byte short, so never valid JSON).
    package static func truncated(_ body: [UInt8]) -> [UInt8] {
        Array(body.prefix(max(1, body.count / 2)))
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
