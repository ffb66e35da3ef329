import PageProxyCore

/// A value in a JSON log line (the same values as an error answer's details).
package typealias LogValue = JSONFieldValue
