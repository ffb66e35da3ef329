import PageProxyCore
import PageProxyServer

/// `_explain=1`: instead of the items, a JSON account of the walk (DESIGN.md "Callers may also ask for less").
///
/// It names the route, the scheme and items path (an auto route's as detected, marked `"detected": true`), the total
/// when the upstream states one, the window and fields asked for, and for every page fetched (speculative fetches
/// included, so the list is every request the walk made) its URL with credentials redacted (cut to
/// `WalkRecord.Fetch.keptURLBytes`, with its whole length), status, cache outcome,
/// bytes, items taken, retries, start and duration (of a walk past 1,000 fetches, the first and last 500, with
/// `fetches_omitted` counting those between: `KeptFetches`); then the time on the upstream and in the cache, and the critical
/// path (`WalkRecord.criticalPath`). A walk that fails is explained too: still 200, with its `error`, since the
/// account is the answer asked for.
struct ExplainAnswer {
    let route: RouteConfig
    let items: RequestedItems
    /// The credentials sent upstream, never shown.
    let secrets: [String]

    /// Walks every page the request needs (through the window and the fields, as the items answer would) and sends
    /// the account.
    func walkAndSend(_ walk: RouteWalk, recording requestRecord: RequestRecord, response: consuming Response) async -> WalkAnswer {
        var failure: PaginationError?
        let walker = walk.walker
        do {
            try await walker.walk { page in
                _ = items.shape(page, walker: walker)
                return .takeNext
            }
        } catch {
            // The body throws nothing: the walk's own error.
            failure = error as? PaginationError ?? .cancelled
        }
        // A window that counted pages by a size the upstream does not serve is walked again from the first page, and
        // that walk is the one explained.
        if walker.missedWindowPageSize { return .declined(response) }
        return .answered(await send(walk: walk, failure: failure, truncated: walk.walker.wasTruncated, recording: requestRecord, response: response))
    }

    /// Sends the account of a walk; `walk` is nil when it could not start (an auto route's first page failed).
    func send(
        walk: RouteWalk?, failure: PaginationError?, truncated: Bool, recording requestRecord: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        let record = items.record
        let fetches = record.fetches
        var fields: [(String, LogValue)] = [("route", .string(route.name))]
        if let detected = walk?.detected {
            fields += [("scheme", .string(detected.schemeName)), ("detected", .bool(true)), ("items_path", .string(detected.itemsPath.description))]
        } else {
            fields += [("scheme", .string(route.pagination.name)), ("detected", .bool(false)), ("items_path", .string(route.itemsPath.description))]
        }
        // The total the merged answer would state: none that the pages found disprove (`RequestedItems.statedTotal`).
        let statedTotal = walk.map { items.statedTotal(walker: $0.walker, walkEnded: true) } ?? items.total
        fields.append(("total", statedTotal.map { .int($0) } ?? .json("null")))
        if let window = items.window {
            var limit: LogValue = .int(window.limit)
            if window.limit == Int.max { limit = .json("null") }
            fields.append(("window", .json(JSONText.object([("offset", .int(window.offset)), ("limit", limit)]))))
        }
        if let selection = items.fields { fields.append(("fields", .string(selection.description))) }
        let taken = record.taken
        fields.append(("outcome", .string(failure != nil ? "failed" : truncated ? "stopped_early" : "complete")))
        // A walk that ended short of the total its first page stated (an empty page, or one saying it is the last, among
        // those the total numbered) says so, and what was stated: `total` above is then null (review17 L3).
        if let walker = walk?.walker, walker.endedShortOfTotal {
            fields.append(("ended", .string("short_of_total")))
            if let stated = items.total { fields.append(("stated_total", .int(stated))) }
        } else if let walker = walk?.walker, walker.endedOnRepeat {
            // The last page held the one before's items again: past the end, or data that repeats (retest14 M1).
            fields.append(("ended", .string("repeated_page")))
        }
        // A list that grew at its tail during the walk (a later page stated a larger end, no item walked moved): the
        // answer is the list as numbered from the first page's end, and says what it grew to (review21 F3).
        if let walker = walk?.walker, let growth = walker.statedEndGrowth {
            let unit = growth.from.countsItems ? "items" : "pages"
            fields.append(("stated_end_grew", .json(JSONText.object([("from", .int(growth.from.value)), ("to", .int(growth.to.value)), ("unit", .string(unit))]))))
        }
        fields.append(("pages", .int(taken.pages)))
        fields.append(("items", .int(taken.items)))
        if let failure {
            let response = PaginationErrorResponse(failure, route: route.name, secrets: secrets)
            fields.append(("error", .json(JSONText.object([("code", .string(response.code)), ("message", .string(response.message))]))))
        }
        let timing = record.timing
        let total = record.elapsed
        fields.append((
            "timing",
            .json(JSONText.object([
                ("upstream_ms", Self.ms(timing.upstream)), ("cache_ms", Self.ms(timing.cache)), ("total_ms", Self.ms(total)),
            ]))
        ))
        fields.append(("fetches", .json("[" + fetches.map(Self.describe).joined(separator: ",") + "]")))
        let omitted = record.omittedFetches
        if let pages = omitted.pages {
            // A long walk's account lists its first and last fetches (`KeptFetches`) and counts those between.
            fields.append((
                "fetches_omitted",
                .json(JSONText.object([
                    ("count", .int(omitted.count)), ("first_page", .int(pages.lowerBound)), ("last_page", .int(pages.upperBound)),
                    ("bytes", .int(omitted.bytes)), ("retries", .int(omitted.retries)), ("failed", .int(omitted.failed)),
                ]))
            ))
        }
        let path = record.criticalPath
        let pathTime = path.last.map { $0.finished - (path.first?.started ?? .zero) } ?? .zero
        fields.append((
            "critical_path",
            .json(JSONText.object([("pages", .json("[" + path.map { String($0.number) }.joined(separator: ",") + "]")), ("ms", Self.ms(pathTime))]))
        ))
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json; charset=utf-8")
        // An account of one walk, at one time: nothing for a cache to keep.
        headers.set("Cache-Control", "no-store")
        headers.set("Server-Timing", ServerTimingField.value(upstream: timing.upstream, cache: timing.cache, total: total))
        await response.send(.ok, headers: headers, body: Array((JSONText.object(fields) + "\n").utf8))
        var requestRecord = requestRecord
        requestRecord.isExplained = true
        return requestRecord
    }

    private static func describe(_ fetch: WalkRecord.Fetch) -> String {
        var fields: [(String, LogValue)] = [
            ("page", .int(fetch.number)), ("url", .string(fetch.url)),
            ("status", fetch.status.map { .int($0) } ?? .json("null")),
            ("cache", fetch.outcome.map { .string($0.rawValue) } ?? .json("null")),
            ("bytes", .int(fetch.bytes)), ("items", fetch.items.map { .int($0) } ?? .json("null")),
            ("retries", .int(fetch.retries)), ("started_ms", ms(fetch.started)), ("duration_ms", ms(fetch.finished - fetch.started)),
        ]
        // A URL cut to `keptURLBytes` says how long it was (review9 G1).
        if fetch.urlBytes > fetch.url.utf8.count { fields.insert(("url_bytes", .int(fetch.urlBytes)), at: 2) }
        if let error = fetch.error { fields.append(("error", .string(error))) }
        return JSONText.object(fields)
    }

    private static func ms(_ duration: Duration) -> LogValue {
        .json(ServerTimingField.milliseconds(duration))
    }
}
