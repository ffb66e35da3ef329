import Foundation

/// How long an upstream page stays fresh, from the route's TTL and the upstream's `Cache-Control`, `Expires`, `Date`,
/// `Age` and `Vary` (RFC 9111 §4.2, §5).
///
/// PageProxy is a private cache in front of one client application, and its entries are keyed by the credentials
/// that fetched them, so:
/// - `no-store`: never stored (an existing entry for the key is removed);
/// - `private` (also `private="field"`, taken as unqualified, RFC 9111 §5.2.2.7): stored like any other response,
///   for this set of credentials only (they are part of the key); every answer built from the page says `private`
///   too (`isPrivate`), so that no shared cache in front of PageProxy keeps it;
/// - `no-cache` (also `no-cache="field"`, taken as unqualified, §5.2.2.4), and `Vary: *` (§4.1: a stored response
///   that varies on everything matches no later request): stored, but revalidated before every use, and never
///   served stale; answers built from it say `max-age=0, no-cache`;
/// - `max-age=N`: fresh for N seconds less the page's age, replacing the route's TTL, shorter or longer; an invalid
///   one (`abc`, `-1`) leaves the page stale at once (§4.2.1: revalidated before it is used);
/// - `Expires` without `max-age` (§5.3, for every cache): fresh until then, `Expires − Date` less the page's age,
///   replacing the route's TTL; a date in the past, or one that is not a date (`Expires: 0`), is stale at once;
/// - the page's age (§4.2.3): the larger of `Age` and the apparent age `now − Date` (zero when `Date` is ahead of
///   PageProxy's clock: an upstream clock that runs fast makes nothing stale); `Expires − Date` is a difference of
///   two readings of the upstream's own clock, so a skewed one does not change it;
/// - a page whose `Date` alone uses up the lifetime it was given (an upstream clock behind by more than that) is
///   stale on arrival, as RFC 9111 says; `isStaleByDateAlone` tells the proxy, which logs and counts it;
/// - the route's TTL is the default for a page that says none of these, counted from when PageProxy received it;
/// - `must-revalidate` (or `proxy-revalidate`): fresh as usual, but never served stale when the upstream fails;
/// - `s-maxage` applies to shared caches only and is ignored.
package struct CacheFreshness: Sendable, Equatable {
    /// Whether the response may be written to the cache at all.
    package var isStorable: Bool
    /// How long from now the response is fresh.
    package var lifetime: Duration
    package var mustRevalidate: Bool
    /// Whether the upstream set `lifetime` (`max-age`, `no-cache`) rather than the route's TTL.
    package var lifetimeFromUpstream: Bool
    /// The upstream said `private`: the page is for the credentials that fetched it, and no shared cache may keep it.
    package var isPrivate: Bool
    /// The upstream gave a lifetime that its `Date` alone used up: the apparent age (`now − Date`) left nothing of it
    /// where `Age` would have (review9 G3). Most likely the upstream's clock is behind this one by more than the
    /// lifetime: its pages are stale on arrival, and nothing is served from the cache without asking it.
    package var isStaleByDateAlone: Bool { staleByDateBehind != nil }
    /// When `isStaleByDateAlone`, how far the upstream's `Date` was behind this clock (parsed once, here: review10).
    package var staleByDateBehind: Duration?
    /// The response's age as it arrived (RFC 9111 §4.2.3): the larger of its `Age` and of how far its `Date` is behind
    /// `now` (zero when neither says, or `Date` is ahead). The entry keeps it for a client's `max-age`.
    package var initialAge: Duration = .zero

    package init(isStorable: Bool, lifetime: Duration, mustRevalidate: Bool, lifetimeFromUpstream: Bool = false, isPrivate: Bool = false) {
        self.isStorable = isStorable
        self.lifetime = lifetime
        self.mustRevalidate = mustRevalidate
        self.lifetimeFromUpstream = lifetimeFromUpstream
        self.isPrivate = isPrivate
    }

    /// The freshness of a response received at `now` with `headers`.
    package init(headers: HTTPHeaders, routeTTL: Duration, now: Date) {
        let directives = CacheFreshness.directives(headers)
        isStorable = directives["no-store"] == nil
        mustRevalidate = directives["must-revalidate"] != nil || directives["proxy-revalidate"] != nil
        isPrivate = directives["private"] != nil
        let arrival = ArrivalAge(headers, now: now)
        initialAge = .seconds(arrival.age)
        lifetimeFromUpstream = true
        if directives["no-cache"] != nil || headers.tokens("Vary").contains("*") {
            lifetime = .zero
            mustRevalidate = true
        } else if let upstream = CacheFreshness.upstreamLifetime(headers, maxAge: directives["max-age"], arrival: arrival, now: now) {
            (lifetime, staleByDateBehind) = upstream
        } else {
            lifetime = routeTTL
            lifetimeFromUpstream = false
        }
    }

    /// RFC 9111 §4.2.3 — what a response's `Age` and `Date` say of its age as it arrives at `now`. (The response
    /// delay is left out: the age counts from the response's arrival.)
    private struct ArrivalAge {
        let date: Date?
        /// The `Age` field's value, in seconds (0 without one).
        let ageValue: Int64
        /// How far `Date` is behind `now`, in seconds; a `Date` ahead of this clock is no age at all (a negative
        /// apparent age is zero).
        let apparentAge: Int64
        /// The response's age: the larger of the two.
        var age: Int64 { max(ageValue, apparentAge) }

        init(_ headers: HTTPHeaders, now: Date) {
            date = headers["Date"].flatMap { HTTPDate.parse($0.trimmingCharacters(in: .whitespaces)) }
            ageValue = headers["Age"].flatMap { CacheFreshness.seconds($0) } ?? 0
            apparentAge = date.map { max(0, CacheFreshness.wholeSeconds(now.timeIntervalSince($0))) } ?? 0
        }
    }

    /// RFC 9111 §4.2.1 — the lifetime the upstream gave (`max-age`, else `Expires − Date`) less the page's age
    /// (§4.2.3), at least zero; zero for an invalid one (attack6 F5: `max-age=abc`, `Expires: 0` were served for the
    /// route's TTL); nil when it gave none. And, when the apparent age from `Date` alone made it zero
    /// (`isStaleByDateAlone`), how far behind `now` that `Date` was.
    private static func upstreamLifetime(_ headers: HTTPHeaders, maxAge: String?, arrival: ArrivalAge, now: Date) -> (Duration, staleByDate: Duration?)? {
        let given: Int64
        if let maxAge {
            guard let seconds = seconds(maxAge) else { return (.zero, nil) }
            given = seconds
        } else if let expires = headers["Expires"] {
            guard let expiry = HTTPDate.parse(expires.trimmingCharacters(in: .whitespaces)) else { return (.zero, nil) }
            given = wholeSeconds(expiry.timeIntervalSince(arrival.date ?? now))
        } else {
            return nil
        }
        let staleByDate = given > arrival.ageValue && arrival.apparentAge >= given
        let behind = arrival.date.flatMap { staleByDate ? Duration.seconds(max(0, now.timeIntervalSince($0))) : nil }
        return (.seconds(max(0, given - arrival.age)), behind)
    }

    /// `interval` in whole seconds, rounded down, within the range `seconds(_:)` reads.
    private static func wholeSeconds(_ interval: TimeInterval) -> Int64 {
        guard interval.isFinite else { return 0 }
        return Int64(min(max(interval.rounded(.down), -2_147_483_648), 2_147_483_648))
    }

    /// The entry for a 200 `response` received at `now`, or nil when it must not be stored.
    package static func entry(for response: UpstreamResponse, routeTTL: Duration, now: Date) -> CacheEntry? {
        entry(for: response, freshness: CacheFreshness(headers: response.headers, routeTTL: routeTTL, now: now), now: now)
    }

    /// The entry for a 200 `response` received at `now` whose freshness is `freshness`, or nil when it must not be stored.
    package static func entry(for response: UpstreamResponse, freshness: CacheFreshness, now: Date) -> CacheEntry? {
        guard response.status.code == 200, freshness.isStorable else { return nil }
        return CacheEntry(
            status: response.status, headers: CacheEntry.storedHeaders(of: response.headers), body: response.body,
            storedAt: now, freshUntil: now.addingTimeInterval(freshness.lifetime.timeInterval),
            mustRevalidate: freshness.mustRevalidate, lifetimeFromUpstream: freshness.lifetimeFromUpstream, initialAge: freshness.initialAge)
    }

    /// `Cache-Control` directives by lowercased name, with their argument (unquoted) or "" when they have none.
    package static func directives(_ headers: HTTPHeaders) -> [String: String] {
        var result: [String: String] = [:]
        for token in headers.tokens("Cache-Control") {
            let parts = token.split(separator: "=", maxSplits: 1)
            guard let name = parts.first else { continue }
            var value = parts.count > 1 ? String(parts[1]) : ""
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            let key = String(name).trimmingCharacters(in: .whitespaces)
            // RFC 9111 §4.2.1 — with a directive repeated, the first one counts.
            if result[key] == nil { result[key] = value }
        }
        return result
    }

    /// Whether `headers` say `private` (qualified or not): what an entry remembers of its `Cache-Control`, read
    /// once when it is made, not for every answer built from it.
    /// Reads the bytes in place, with no allocation: it runs for every entry read back from its file.
    package static func isPrivate(_ headers: HTTPHeaders) -> Bool {
        headers.contains { HTTPHeaders.namesEqual($0.name, "Cache-Control") && namesPrivate($0.value) }
    }

    /// Whether one of the comma-separated directives of `value` is `private` (any case, with or without an argument;
    /// `private="a, b"` splits at its comma, but its first part still names the directive).
    private static func namesPrivate(_ value: String) -> Bool {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        var rest = value.utf8[...]
        while !rest.isEmpty {
            let element = rest.prefix { $0 != UInt8(ascii: ",") }
            rest = rest.dropFirst(element.count + 1)
            let name = element.prefix { $0 != UInt8(ascii: "=") }.drop(while: isSpace).reversed().drop(while: isSpace)
            if name.elementsEqual("private".utf8.reversed(), by: { HTTPHeaders.lowercased($0) == $1 }) { return true }
        }
        return false
    }

    /// RFC 9111 §1.2.2 — delta-seconds; an absurdly large value is capped rather than rejected. Leading zeros are
    /// digits like any other (`00000000060` is 60, not a value too long to read: attack6 F10 cached such a page for
    /// 68 years).
    package static func seconds(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let significant = trimmed.utf8.drop { $0 == UInt8(ascii: "0") }
        guard significant.count <= 10 else { return 2_147_483_648 }
        return significant.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }.clamped(to: 2_147_483_648)
    }
}

extension Int64 {
    fileprivate func clamped(to limit: Int64) -> Int64 { Swift.min(self, limit) }
}

extension Duration {
    /// Seconds as a `TimeInterval`.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
