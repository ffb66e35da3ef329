import Foundation

/// Protobuf's JSON mapping leaves an empty repeated field out: MLflow answers a search that matches nothing with `{}`,
/// and Google-style APIs may send a page of no items as `{"nextPageToken": "…"}` (AIP-158). So a page whose items path
/// is missing is a page of no items when it is an object holding only scalars (strings, numbers, booleans, null) or
/// nothing. An object with an array or an object in it still fails with `itemsNotFound`: there the route's items path
/// may be wrong, and an empty answer would hide that.
enum OmittedItems {
    /// Whether `body` (already validated as JSON) is an object with no array or object among its members.
    static func leftOut(in body: [UInt8]) -> Bool {
        // Only on the error path, so decoding the members is no cost to a walk.
        guard let members = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return false }
        return members.values.allSatisfy { !($0 is [Any]) && !($0 is [String: Any]) }
    }
}
