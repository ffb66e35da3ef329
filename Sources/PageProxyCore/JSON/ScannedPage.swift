/// What `JSONScanner.scan` found in one page.
package struct ScannedPage: Sendable, Equatable {
    /// The elements of the items array, in order.
    package var items: [JSONItem]
    /// The values found at the requested paths; a path that does not exist in the document is absent.
    package var values: [JSONPath: JSONValue]

    package init(items: [JSONItem], values: [JSONPath: JSONValue]) {
        self.items = items
        self.values = values
    }
}
