import Foundation

/// Content negotiation as the imitated servers do it: whether a request's `Accept` admits a media type.
package enum MockAccept {
    /// JSON:API's media type, the only one djangorestframework-jsonapi renders.
    package static let jsonAPI = "application/vnd.api+json"

    /// JupyterHub's pagination media type: a listing is paginated only when `Accept` names it exactly.
    package static let jupyterHubPagination = "application/jupyterhub-pagination+json"

    /// Whether `accept` lists JupyterHub's pagination type, as JupyterHub tests it: one of its comma-separated members,
    /// trimmed and lowercased, is the type (no wildcards, no parameters).
    package static func listsJupyterHubPagination(_ accept: String?) -> Bool {
        accept?.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == jupyterHubPagination } ?? false
    }

    /// Whether `accept` admits `type` with a non-zero weight (RFC 9110 §12.5.1); no `Accept` admits anything.
    package static func admits(_ accept: String?, _ type: String) -> Bool {
        guard let accept else { return true }
        let wanted = type.lowercased()
        let major = wanted.split(separator: "/").first.map(String.init) ?? wanted
        for member in accept.split(separator: ",") {
            let parts = member.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let range = parts.first, range == "*/*" || range == major + "/*" || range == wanted else { continue }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if weight > 0 { return true }
        }
        return false
    }
}
