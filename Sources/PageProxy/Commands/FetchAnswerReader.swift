import Foundation
import PageProxyCore

/// Reads the answer of `PageProxy fetch`'s in-process request and copies its items to standard output or a file,
/// a buffer at a time; an error answer goes to standard error. Decides the exit status (`FetchExit`).
struct FetchAnswerReader {
    let socket: AsyncSocket
    /// Where the items go; nil for standard output.
    let outputPath: String?

    static let maxHeadBytes = 64 * 1024
    static let maxErrorBytes = 1 << 20

    func copy() async -> FetchExit {
        var buffer: [UInt8] = []
        let head: (status: Int, fields: [String: String], bodyStart: Int)
        do {
            guard let read = try await readHead(&buffer) else {
                printError("PageProxy fetch: the answer ended before its head")
                return .failed
            }
            head = read
        } catch {
            printError("PageProxy fetch: \(error)")
            return .failed
        }
        buffer.removeFirst(head.bodyStart)
        guard head.status == 200 else { return await reportError(status: head.status, buffer: buffer) }
        let output: FetchOutput
        if let outputPath {
            do {
                output = try FetchOutput(path: outputPath)
            } catch {
                printError("PageProxy fetch: cannot write \(outputPath): \(error)")
                return .failed
            }
        } else {
            output = FetchOutput()
        }
        let expected = head.fields["content-length"].flatMap { Int($0) }
        let streamed = head.fields["content-type"]?.hasPrefix(OutputFormat.ndjson.contentType) ?? false
        return await copyBody(buffer, expected: expected, streamed: streamed, to: output)
    }

    /// Copies the body; a merged answer must reach its `Content-Length`, a stream must not end with a failure line.
    private func copyBody(_ start: [UInt8], expected: Int?, streamed: Bool, to output: FetchOutput) async -> FetchExit {
        do {
            return try await copyBody(start, expected: expected, streamed: streamed, writingTo: output)
        } catch {
            if error.errno == EPIPE { return .readerLeft }
            printError("PageProxy fetch: cannot write \(output.name): \(error)")
            return .failed
        }
    }

    private func copyBody(
        _ start: [UInt8], expected: Int?, streamed: Bool, writingTo output: FetchOutput
    ) async throws(FetchOutput.WriteFailure) -> FetchExit {
        var pending = start
        var written = 0
        while true {
            // A stream's bytes are written a whole line at a time, so that a failure line is seen before it is written;
            // a merged answer's as they come.
            let cut = streamed ? pending.lastIndex(of: UInt8(ascii: "\n")) : pending.indices.last
            if let cut {
                var chunk = Array(pending[...cut])
                pending.removeFirst(cut + 1)
                if streamed, let failure = failureStart(in: chunk) {
                    let line = String(decoding: chunk[failure...] + pending, as: UTF8.self)
                    chunk.removeLast(chunk.count - failure)
                    try output.write(chunk[...])
                    printError("PageProxy fetch: the walk failed after \(written + chunk.count) bytes of items: \(line.trimmingCharacters(in: .whitespacesAndNewlines))")
                    return .partial
                }
                try output.write(chunk[...])
                written += chunk.count
            }
            let count = (try? await socket.read(into: &pending, maxBytes: 256 * 1024, deadline: nil)) ?? 0
            if count == 0 { break }
        }
        try output.write(pending[...])
        written += pending.count
        if let expected, written < expected {
            printError("PageProxy fetch: the answer ended after \(written) of \(expected) bytes")
            return .partial
        }
        return .ok
    }

    /// Where a failure line starts in `chunk` (whole lines: it starts where a line does), if one does.
    private func failureStart(in chunk: [UInt8]) -> Int? {
        let marker = Array(StreamFailureLine.marker.utf8)
        if chunk.starts(with: marker) { return 0 }
        // Items are one line each and hold no raw newline, so the marker after a newline can only be the failure line.
        let needle = [UInt8(ascii: "\n")] + marker
        guard chunk.count >= needle.count else { return nil }
        var index = 0
        while index <= chunk.count - needle.count {
            if chunk[index] == needle[0], chunk[index + 1] == needle[1], Array(chunk[index..<index + needle.count]) == needle {
                return index + 1
            }
            index += 1
        }
        return nil
    }

    /// An error answer: its JSON on standard error, and the exit status its code calls for.
    private func reportError(status: Int, buffer: [UInt8]) async -> FetchExit {
        var body = buffer
        while body.count < Self.maxErrorBytes, (try? await socket.read(into: &body, maxBytes: 65536, deadline: nil)) ?? 0 > 0 {}
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        printError("PageProxy fetch: \(status) \(text)")
        let code = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            .flatMap { $0["error"] as? [String: Any] }.flatMap { $0["code"] as? String }
        // PageProxy's own refusals (a bad control or path, an unknown route); a 4xx the upstream gave is its failure.
        let ownRefusal = (status == 400 || status == 404) && code != "upstream_client_error"
        return ownRefusal ? .badRequest : .upstream
    }

    /// Reads until the end of the head; nil if the connection ended first.
    private func readHead(_ buffer: inout [UInt8]) async throws -> (status: Int, fields: [String: String], bodyStart: Int)? {
        let end = Array("\r\n\r\n".utf8)
        while true {
            if let range = buffer.firstRange(of: end) {
                let lines = String(decoding: buffer[..<range.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
                var fields: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return (status, fields, range.upperBound)
            }
            guard buffer.count < Self.maxHeadBytes else { return nil }
            if try await socket.read(into: &buffer, maxBytes: 65536, deadline: nil) == 0 { return nil }
        }
    }
}
