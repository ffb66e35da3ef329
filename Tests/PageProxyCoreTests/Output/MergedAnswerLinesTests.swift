import Foundation
import Testing

@testable import PageProxyCore

/// Issue 13, nineteenth pass: NDJSON made from a merged answer's body and its item separators, found once when its entry
/// is written, must be byte for byte the lines a walk writes (`NDJSONBody`).
@Suite struct MergedAnswerLinesTests {
    /// Items whose strings hold every byte the scan must not take for structure: commas, brackets, braces, escaped
    /// quotes and backslashes.
    static let items = [
        #"{"a":"x,]}"}"#, #"{"b":[1,2,{"c":[3]}]}"#, #"{"q":"\",\\"}"#, #"[1,"]",{}]"#, #""s,t""#, "42", #"{"e":"\\"}"#, "null",
    ]
    static let merged = Array(("[" + items.joined(separator: ",") + "]").utf8)
    static let lines = Array(items.map { $0 + "\n" }.joined().utf8)

    @Test("the separators are the commas between items only, none inside a string, array or object")
    func separatorsAreTheTopLevelCommas() throws {
        let separators = try #require(MergedAnswerLines.separators(ofMerged: Self.merged, items: Self.items.count))
        #expect(separators.count == Self.items.count - 1)
        var expected: [Int] = []
        var offset = 0
        for item in Self.items.dropLast() {
            offset += 1 + item.utf8.count
            expected.append(offset)
        }
        #expect(separators == expected)
    }

    @Test("another item count, or no array, gives no separators (never sent as lines); no items: none, and no lines")
    func aBodyThatIsNotTheItemsGivesNone() {
        #expect(MergedAnswerLines.separators(ofMerged: Self.merged, items: Self.items.count + 1) == nil)
        #expect(MergedAnswerLines.separators(ofMerged: Self.merged, items: 1) == nil)
        #expect(MergedAnswerLines.separators(ofMerged: Array(#"{"a":1}"#.utf8), items: 1) == nil)
        #expect(MergedAnswerLines.separators(ofMerged: Array(#"["a,]"#.utf8), items: 1) == nil)
        #expect(MergedAnswerLines.separators(ofMerged: Array("[]".utf8), items: 0) == [])
        #expect(MergedAnswerLines.length(mergedLength: 2, items: 0) == 0)
    }

    @Test("the lines made in chunks of any size are the walk's NDJSON, byte for byte", arguments: [1, 2, 3, 7, 64, 10_000])
    func linesInChunksAreTheNDJSON(_ chunkSize: Int) throws {
        let separators = try #require(MergedAnswerLines.separators(ofMerged: Self.merged, items: Self.items.count))
        var made: [UInt8] = []
        var (start, next) = (1, 0)
        while start < Self.merged.count {
            let end = min(Self.merged.count, start + chunkSize)
            var chunk = Array(Self.merged[start..<end])
            try MergedAnswerLines.makeLines(&chunk, at: start, separators: separators, next: &next, mergedLength: Self.merged.count)
            made += chunk
            start = end
        }
        #expect(made == Self.lines)
        #expect(made.count == MergedAnswerLines.length(mergedLength: Self.merged.count, items: Self.items.count))
    }

    @Test("a byte other than the comma where a separator is (the file holds other bytes) is refused")
    func aMisplacedSeparatorIsRefused() throws {
        let separators = try #require(MergedAnswerLines.separators(ofMerged: Self.merged, items: Self.items.count))
        var chunk = Array(Self.merged[1...])
        var next = 0
        #expect(throws: MergedAnswerLines.Mismatch.self) {
            try MergedAnswerLines.makeLines(&chunk, at: 1, separators: separators.map { $0 + 1 }, next: &next, mergedLength: Self.merged.count)
        }
    }

    @Test("an answer entry keeps its separators (format 2): read back as written; unknown ones stay unknown; a count that is not one between every two items is a bad head")
    func theEntryFormatKeepsTheSeparators() throws {
        let separators = try #require(MergedAnswerLines.separators(ofMerged: Self.merged, items: Self.items.count))
        var answer = AnswerEntry(
            etag: "\"t\"", freshUntil: Date(timeIntervalSince1970: 2_000), pages: 1, items: Self.items.count, truncated: false, upstreamPrivate: false,
            headers: HTTPHeaders(), manifest: [], itemSeparators: separators)
        let head = AnswerEntryFormat.encodeHead(answer, bodyLength: Self.merged.count)
        #expect(try AnswerEntryFormat.decodeHead(head[...]).itemSeparators == separators)
        answer.itemSeparators = nil
        #expect(try AnswerEntryFormat.decodeHead(AnswerEntryFormat.encodeHead(answer, bodyLength: Self.merged.count)[...]).itemSeparators == nil)
        // Separators for one item fewer than the answer says: refused when read.
        answer.itemSeparators = Array(separators.dropLast())
        #expect(throws: AnswerEntryFormat.Invalid.badHead) {
            try AnswerEntryFormat.decodeHead(AnswerEntryFormat.encodeHead(answer, bodyLength: Self.merged.count)[...])
        }
        // One past the body's end: refused.
        answer.itemSeparators = separators.dropLast() + [Self.merged.count]
        #expect(throws: AnswerEntryFormat.Invalid.badHead) {
            try AnswerEntryFormat.decodeHead(AnswerEntryFormat.encodeHead(answer, bodyLength: Self.merged.count)[...])
        }
        // An entry of the format before (no separators at all) is another version.
        var old = head
        old[7] = 1
        #expect(throws: AnswerEntryFormat.Invalid.unsupportedVersion(1)) { try AnswerEntryFormat.decodeHead(old[...]) }
    }

    @Test("an answer written by `AnswerEntries` finds its separators itself, and its file's chunks are the lines")
    func aWrittenAnswerServesItsLines() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let stamps = try [1, 2].map { page in try #require(store.write(DiskStoreTests.entry(page), for: DiskStoreTests.key(page))) }
        let entries = AnswerEntries(store: store, budget: HeldEntryFileBudget(capacity: 8))
        let answer = AnswerEntry(
            etag: "\"t\"", freshUntil: Date(timeIntervalSince1970: 2_000), pages: 2, items: Self.items.count, truncated: false, upstreamPrivate: false,
            headers: HTTPHeaders(), manifest: [])
        let key = try #require(CacheKey(hex: String(repeating: "cd", count: 32)))
        #expect(entries.write(answer, body: Self.merged, stamps: stamps, madeAt: Date(timeIntervalSince1970: 1_400), for: key))
        let found = try #require(entries.read(key, at: Date(timeIntervalSince1970: 1_500)))
        let separators = try #require(found.answer.itemSeparators)
        var chunks = MergedAnswerLines.FileChunks(file: found.file, mergedLength: found.length, items: Self.items.count, separators: separators)
        var made: [UInt8] = []
        while let chunk = try chunks.next() { made += chunk }
        #expect(made == Self.lines)
        _ = directory
    }

    /// Twentieth pass: the chunks are read into one buffer kept for the answer. Chunks held by the caller while it asks
    /// for the next ones (a sender that has not let go yet) keep their bytes; together they are the lines, byte for
    /// byte, over several chunks and a shorter last one.
    @Test("the lines of an answer of several chunks are read into one reused buffer; chunks still held keep their bytes")
    func chunksHeldAcrossReadsKeepTheirBytes() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 8 << 20)
        let stamps = try [1, 2].map { page in try #require(store.write(DiskStoreTests.entry(page), for: DiskStoreTests.key(page))) }
        let entries = AnswerEntries(store: store, budget: HeldEntryFileBudget(capacity: 8))
        // ~2.6 chunks of items, each line distinct (its number), so a chunk overwritten by the next would show.
        let items = (0..<30_000).map { #"{"n":\#($0),"s":"a,b]"}"# }
        let merged = Array(("[" + items.joined(separator: ",") + "]").utf8)
        let lines = Array(items.map { $0 + "\n" }.joined().utf8)
        #expect(lines.count > 2 * MergedAnswerLines.chunkBytes && lines.count % MergedAnswerLines.chunkBytes != 0)
        let answer = AnswerEntry(
            etag: "\"t\"", freshUntil: Date(timeIntervalSince1970: 2_000), pages: 2, items: items.count, truncated: false, upstreamPrivate: false,
            headers: HTTPHeaders(), manifest: [])
        let key = try #require(CacheKey(hex: String(repeating: "ce", count: 32)))
        #expect(entries.write(answer, body: merged, stamps: stamps, madeAt: Date(timeIntervalSince1970: 1_400), for: key))
        let found = try #require(entries.read(key, at: Date(timeIntervalSince1970: 1_500)))
        let separators = try #require(found.answer.itemSeparators)
        var chunks = MergedAnswerLines.FileChunks(file: found.file, mergedLength: found.length, items: items.count, separators: separators)
        var held: [[UInt8]] = []
        while let chunk = try chunks.next() { held.append(chunk) }
        #expect(held.count == 3)
        #expect(held.dropLast().allSatisfy { $0.count == MergedAnswerLines.chunkBytes })
        #expect(Array(held.joined()) == lines)
        _ = directory
    }
}
