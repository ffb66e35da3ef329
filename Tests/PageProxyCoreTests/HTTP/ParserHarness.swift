import PageProxyCore
import Testing

/// Feeds parsers the same input all at once, byte by byte and split at every position, and checks that the
/// outcome never depends on how the bytes arrived (the idea of NIO's ByteToMessageDecoderVerifier).
enum ParserHarness {
    struct RequestOutcome: Equatable, CustomStringConvertible {
        var heads: [HTTPRequestHead] = []
        var error: HTTPParseError?
        var leftover: [UInt8] = []
        var hasPartialRequest = false

        var summaries: [String] { heads.map(ParserHarness.summary) }

        static func == (lhs: RequestOutcome, rhs: RequestOutcome) -> Bool {
            lhs.summaries == rhs.summaries && lhs.error == rhs.error && lhs.leftover == rhs.leftover
                && lhs.hasPartialRequest == rhs.hasPartialRequest
        }

        var description: String {
            "requests: \(summaries), error: \(error.map(String.init(describing:)) ?? "none"), leftover: \(leftover.count) bytes"
        }
    }

    struct ResponseOutcome: Equatable, CustomStringConvertible {
        var responses: [(head: HTTPResponseHead, body: [UInt8])] = []
        var error: HTTPResponseParseError?
        var leftover: [UInt8] = []
        var isReusable = false

        var summaries: [String] {
            responses.map { "\($0.head.version) \($0.head.status.code) \($0.head.status.reasonPhrase) \(Array($0.head.headers).map { "\($0.name)=\($0.value)" }) body=\($0.body)" }
        }

        static func == (lhs: ResponseOutcome, rhs: ResponseOutcome) -> Bool {
            lhs.summaries == rhs.summaries && lhs.error == rhs.error && lhs.leftover == rhs.leftover && lhs.isReusable == rhs.isReusable
        }

        var description: String {
            "responses: \(summaries), error: \(error.map(String.init(describing:)) ?? "none"), leftover: \(leftover.count) bytes"
        }
    }

    static func summary(_ head: HTTPRequestHead) -> String {
        let fields = Array(head.headers).map { "\($0.name)=\($0.value)" }
        return "\(head.method) \(head.target) \(head.version) \(fields)"
    }

    /// Every way of delivering `input`: whole, byte by byte, and (if `everySplit`) in two parts split at each position.
    static func deliveries(of input: [UInt8], everySplit: Bool) -> [[ArraySlice<UInt8>]] {
        var result: [[ArraySlice<UInt8>]] = [[input[...]], input.indices.map { input[$0..<($0 + 1)] }]
        if everySplit {
            for split in 0...input.count { result.append([input[..<split], input[split...]]) }
        }
        return result
    }

    static func runRequests(_ chunks: [ArraySlice<UInt8>], limits: HTTPLimits) -> RequestOutcome {
        var parser = HTTPRequestParser(limits: limits)
        var buffer: [UInt8] = []
        var outcome = RequestOutcome()
        for chunk in chunks {
            buffer.append(contentsOf: chunk)
            do {
                while case .request(let head) = try parser.parse(&buffer) { outcome.heads.append(head) }
            } catch {
                outcome.error = error
                return outcome
            }
        }
        outcome.leftover = buffer
        outcome.hasPartialRequest = parser.hasPartialRequest
        return outcome
    }

    /// Parses `input` every way and expects the same outcome each time; returns the whole-input outcome.
    @discardableResult
    static func requests(
        _ input: String, limits: HTTPLimits = HTTPLimits(), everySplit: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> RequestOutcome {
        requests(Array(input.utf8), limits: limits, everySplit: everySplit, sourceLocation: sourceLocation)
    }

    @discardableResult
    static func requests(
        _ input: [UInt8], limits: HTTPLimits = HTTPLimits(), everySplit: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> RequestOutcome {
        let all = deliveries(of: input, everySplit: everySplit)
        let expected = runRequests(all[0], limits: limits)
        for (index, chunks) in all.enumerated().dropFirst() {
            let outcome = runRequests(chunks, limits: limits)
            #expect(outcome == expected, "delivery \(index) differs", sourceLocation: sourceLocation)
            if outcome != expected { break }
        }
        return expected
    }

    /// Expects `input` to be refused with `error` however it arrives.
    static func expectRejection(
        _ input: String, _ error: HTTPParseError, limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let outcome = requests(input, limits: limits, sourceLocation: sourceLocation)
        #expect(outcome.error == error, "\(input.debugDescription)", sourceLocation: sourceLocation)
    }

    static func runResponses(_ chunks: [ArraySlice<UInt8>], method: HTTPMethod, maxBodyBytes: Int, finish: Bool) -> ResponseOutcome {
        var parser = HTTPResponseParser(maxBodyBytes: maxBodyBytes)
        var buffer: [UInt8] = []
        var outcome = ResponseOutcome()
        do {
            for chunk in chunks {
                buffer.append(contentsOf: chunk)
                while case .response(let head, let body) = try parser.parse(&buffer, method: method) {
                    outcome.responses.append((head, body))
                }
            }
            if finish, case .response(let head, let body) = try parser.finish() {
                outcome.responses.append((head, body))
            }
        } catch {
            outcome.error = error
            return outcome
        }
        outcome.leftover = buffer
        outcome.isReusable = parser.isReusable
        return outcome
    }

    /// Parses upstream responses every way (calling `finish()` at the end if asked) and expects the same outcome.
    @discardableResult
    static func responses(
        _ input: String, method: HTTPMethod = .get, maxBodyBytes: Int = 1 << 20, finish: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ResponseOutcome {
        let all = deliveries(of: Array(input.utf8), everySplit: true)
        let expected = runResponses(all[0], method: method, maxBodyBytes: maxBodyBytes, finish: finish)
        for (index, chunks) in all.enumerated().dropFirst() {
            let outcome = runResponses(chunks, method: method, maxBodyBytes: maxBodyBytes, finish: finish)
            #expect(outcome == expected, "delivery \(index) differs", sourceLocation: sourceLocation)
            if outcome != expected { break }
        }
        return expected
    }
}
