

/// Feeds arbitrary bytes to the request parser, whole and then split in two at a position the input chooses:
/// any outcome but a crash or a hang is fine, and both feedings must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var limits = HTTPLimits()
    limits.maxRequestLineBytes = 512
    limits.maxHeaderBytes = 2048
    limits.maxRequestBodyBytes = 4096
    let whole = parseAll(bytes, limits: limits, split: nil)
    let split = parseAll(bytes, limits: limits, split: bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1))
    precondition(whole == split, "the parse depends on how the bytes arrive")
    return 0
}

/// Parses every request in `bytes`; returns the targets parsed and the error code, if any.
private func parseAll(_ bytes: [UInt8], limits: HTTPLimits, split: Int?) -> [String] {
    var parser = HTTPRequestParser(limits: limits)
    var buffer: [UInt8] = []
    var results: [String] = []
    let pieces = split.map { [Array(bytes[..<$0]), Array(bytes[$0...])] } ?? [bytes]
    do {
        for piece in pieces {
            buffer += piece
            while case .request(let head) = try parser.parse(&buffer) {
                results.append(head.method.rawValue + " " + head.target)
            }
        }
    } catch {
        results.append("error " + error.code)
    }
    return results
}
