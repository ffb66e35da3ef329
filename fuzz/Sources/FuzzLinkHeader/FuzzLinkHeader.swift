

/// Parses arbitrary text as a Link header: it must never crash, and every link's target came from inside `<…>`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLinkHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for link in LinkHeaderParser.parse(text) {
        precondition(!link.target.contains(">"), "a target ran past its closing bracket")
    }
    return 0
}
