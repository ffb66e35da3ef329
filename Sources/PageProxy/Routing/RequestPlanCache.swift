import PageProxyCore
import Synchronization

/// The plans of recent requests, looked up by the raw request before it is routed, so that a repeat is not planned
/// again (issue 13: at 10 KB, routing and planning a request — controls, upstream headers, URLs, the memo key — took
/// an eighth of a warm answer's time, and more of an NDJSON one's).
///
/// A plan is decided by the config, which never changes, the request target and the fields that `ProxyControls` and
/// `UpstreamHeaders` read: `Accept`, `Cache-Control`, `Pragma`, every `PageProxy-*` field and every route's
/// `forwardHeaders` (and `Connection` when a route forwards any). The key is the target and those fields, names and
/// values byte for byte and in order, so two requests share a plan only when planning each from scratch gives the same
/// one; the plan then answers the request at hand (`If-None-Match`, `TE` and the rest are read from it). A request
/// with a field value that is not UTF-8, or a key past `maxKeyBytes`, is planned every time; a plan that failed (a 400)
/// is never kept. Bounded in entries: when full, it starts over.
///
/// No client's credential is kept (loose12, as attack7 did for the memos): the key is a `KeyedDigest` of the target
/// and fields, never their text; a kept plan holds no request and no forwarded field (`RequestPlan.Kept`: a plan that
/// forwards one reads it from each request again); and a target whose query names a credential
/// (`CredentialRedaction.isSecretName`: `api_key`, `access_token`, …) is planned every time, as its URL is the plan.
final class RequestPlanCache: Sendable {
    /// The most plans kept.
    let capacity: Int
    /// The longest key kept (target and deciding fields).
    static let maxKeyBytes = 4096
    /// The names of the fields that decide a plan, besides `PageProxy-*` ones.
    private let decidingFields: [String]
    private let plans = Mutex<[KeyedDigest: RequestPlan.Kept]>([:])

    /// - Parameter routes: every configured route; their `forwardHeaders` decide plans too.
    init(routes: [RouteConfig], capacity: Int = 512) {
        self.capacity = capacity
        var names = ["Accept", "Cache-Control", "Pragma"]
        for route in routes {
            names += route.forwardHeaders.filter { name in !names.contains { HTTPHeaders.namesEqual($0, name) } }
        }
        // `Connection` decides which forwarded fields go upstream (`UpstreamHeaders`: the ones it names do not).
        if routes.contains(where: { !$0.forwardHeaders.isEmpty }) { names.append("Connection") }
        decidingFields = names
    }

    /// The plan kept for a request with the same target and deciding fields, answering `request`; nil when none is.
    func plan(for request: HTTPRequestHead) -> RequestPlan? {
        guard let key = key(for: request), let kept = plans.withLock({ $0[key] }) else { return nil }
        return RequestPlan(kept, answering: request)
    }

    /// Keeps `plan`, made for `request`, unless its target's query names a credential.
    func keep(_ plan: RequestPlan, for request: HTTPRequestHead) {
        guard let key = key(for: request), !Self.queryNamesACredential(request.target) else { return }
        // The plans dropped when full are freed after the lock: the epoll loop takes it for every memo hit (issue 13).
        let dropped = plans.withLock { plans -> [KeyedDigest: RequestPlan.Kept] in
            var dropped: [KeyedDigest: RequestPlan.Kept] = [:]
            if plans.count >= capacity { swap(&dropped, &plans) }
            plans[key] = plan.kept
            return dropped
        }
        _ = dropped
    }

    /// How many plans are kept (tests).
    var count: Int { plans.withLock { $0.count } }

    /// What is kept, keys and plans (tests: none of it may hold a client's credential).
    var kept: [(KeyedDigest, RequestPlan.Kept)] { plans.withLock { $0.map { ($0.key, $0.value) } } }

    /// Whether a parameter of the target's query is named like a credential (`CredentialRedaction`).
    private static func queryNamesACredential(_ target: String) -> Bool {
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        return target[target.index(after: question)...].split { $0 == "&" || $0 == ";" }.contains { pair in
            CredentialRedaction.isSecretName(pair.prefix { $0 != "=" })
        }
    }

    /// A digest of the target, then each deciding field as NUL, name, NUL, value (a target or a field value never
    /// holds a NUL: the request parser refuses one); nil when the request is not to be cached.
    func key(for request: HTTPRequestHead) -> KeyedDigest? {
        guard request.fieldsNotUTF8.isEmpty else { return nil }
        var key = request.target
        var isReserved = false
        for (name, value) in request.headers where decides(name) {
            if !isReserved {
                // Room for every field at the first that decides: one allocation, not one each time the key grows
                // (issue 13: an NDJSON request's `Accept` made the key twice).
                isReserved = true
                key.reserveCapacity(request.headers.reduce(key.utf8.count) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
            }
            key += "\u{0}"
            key += name
            key += "\u{0}"
            key += value
        }
        return key.utf8.count <= Self.maxKeyBytes ? KeyedDigest(key.utf8) : nil
    }

    private func decides(_ name: String) -> Bool {
        // Names of another length are told apart before any byte is compared.
        Self.isControlField(name) || decidingFields.contains { HTTPHeaders.namesEqual($0, name) }
    }

    /// `PageProxy-*`: the header forms of the controls, whichever there are.
    private static func isControlField(_ name: String) -> Bool {
        let prefix = "pageproxy-".utf8
        guard name.utf8.count > prefix.count else { return false }
        return zip(name.utf8, prefix).allSatisfy { HTTPHeaders.lowercased($0) == $1 }
    }
}
