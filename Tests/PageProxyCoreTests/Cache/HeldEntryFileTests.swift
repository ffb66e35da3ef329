import Foundation
import Glibc
import Testing

@testable import PageProxyCore

/// Issue 13, eighth pass: a lookup that keeps its entry's bytes (a merged answer) gets the entry with its file held
/// open, to send the body from, and the store keeps no copy of a first read; the descriptors are counted and closed.
@Suite struct HeldEntryFileTests {
    private static let body = 6000

    /// A store over a directory that another store wrote `count` entries into: a restart.
    private static func restarted(_ directory: TemporaryDirectory, count: Int = 1, budget: HeldEntryFileBudget) -> DiskStore {
        let writer = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        for index in 1...count { writer.write(DiskStoreTests.entry(index, bodyBytes: body), for: DiskStoreTests.key(index)) }
        return DiskStore(directory: directory.path, maxBytes: 1 << 20, heldFiles: budget)
    }

    /// A restarted store over `count` entries, whose held files `capacity` bounds (the directory lives as long as it).
    private static func restarted(count: Int = 1, capacity: Int) -> (DiskStore, HeldEntryFileBudget, TemporaryDirectory) {
        let (directory, budget) = (TemporaryDirectory(), HeldEntryFileBudget(capacity: capacity))
        return (restarted(directory, count: count, budget: budget), budget, directory)
    }

    @Test("the first hit after a restart that keeps its bytes comes with its file, holds no copy, and its next hit keeps one")
    func aFirstReadComesWithItsFile() throws {
        let (store, budget, directory) = Self.restarted(capacity: 8)
        defer { withExtendedLifetime(directory) {} }
        let key = DiskStoreTests.key(1)
        do {
            let entry = try #require(store.lookup(key, keepsFirstRead: true)?.entry)
            #expect(entry == DiskStoreTests.entry(1, bodyBytes: Self.body))
            let file = try #require(entry.file)
            #expect(file.readBody(0..<entry.body.count) == entry.body, "the file's range is the body, byte for byte")
            #expect(file.readBody(10..<20) == Array(entry.body[10..<20]))
            #expect(budget.heldCount == 1)
            #expect(!store.holdsInMemory(key), "sent from the file: no copy kept")
            // The next hit keeps a copy (with no descriptor) and still comes with its file.
            let again = try #require(store.lookup(key, keepsFirstRead: true)?.entry)
            #expect(again.file != nil)
            #expect(store.holdsInMemory(key))
            #expect(budget.heldCount == 2)
        }
        #expect(budget.heldCount == 0, "closed once no one holds them")
        // From memory: no file, nothing held.
        #expect(store.lookup(key, keepsFirstRead: true)?.entry.file == nil)
        // A lookup that does not keep its bytes (NDJSON) holds no file.
        let other = Self.restarted(TemporaryDirectory(), budget: budget)
        #expect(other.lookup(key)?.entry.file == nil)
        #expect(budget.heldCount == 0)
    }

    @Test("past the budget an entry comes without its file and is kept in memory as before; a place given back is taken again")
    func pastTheBudgetEntriesAreHeldAsBytes() throws {
        let (store, budget, directory) = Self.restarted(count: 3, capacity: 1)
        defer { withExtendedLifetime(directory) {} }
        var first = store.lookup(DiskStoreTests.key(1), keepsFirstRead: true)?.entry
        #expect(first?.file != nil)
        let second = try #require(store.lookup(DiskStoreTests.key(2), keepsFirstRead: true)?.entry)
        #expect(second.file == nil)
        #expect(second == DiskStoreTests.entry(2, bodyBytes: Self.body))
        #expect(store.holdsInMemory(DiskStoreTests.key(2)), "held as bytes: kept from its first hit, as before")
        #expect(budget.heldCount == 1)
        first = nil
        #expect(budget.heldCount == 0)
        #expect(store.lookup(DiskStoreTests.key(3), keepsFirstRead: true)?.entry.file != nil)
        #expect(budget.heldCount == 0)
    }

    @Test("a torn entry is still a miss, and holds no descriptor")
    func aTornEntryHoldsNothing() throws {
        let (store, budget, directory) = Self.restarted(capacity: 8)
        defer { withExtendedLifetime(directory) {} }
        #expect(truncate(store.path(for: DiskStoreTests.key(1)), 3000) == 0)
        #expect(store.lookup(DiskStoreTests.key(1), keepsFirstRead: true) == nil)
        #expect(budget.heldCount == 0)
    }

    @Test("entries read ahead hold their files for a lookup that sends from them, and close them for one that does not")
    func readAheadHandsItsFilesOn() throws {
        let (store, budget, directory) = Self.restarted(count: 2, capacity: 8)
        defer { withExtendedLifetime(directory) {} }
        store.readAhead([DiskStoreTests.key(1), DiskStoreTests.key(2)])
        #expect(budget.heldCount == 2)
        do {
            let sent = try #require(store.lookup(DiskStoreTests.key(1), keepsFirstRead: true)?.entry)
            #expect(sent.file?.readBody(0..<sent.body.count) == sent.body)
            #expect(!store.holdsInMemory(DiskStoreTests.key(1)))
            let copied = try #require(store.lookup(DiskStoreTests.key(2))?.entry)
            #expect(copied.file == nil)
            #expect(budget.heldCount == 1)
        }
        #expect(budget.heldCount == 0)
    }

    @Test("a held file replaced by rename or unlinked still holds its bytes; one written in place does not (attack15 H1, attack13 L1)")
    func replacedOrRemovedIsUnchangedWrittenInPlaceIsNot() throws {
        let (store, _, directory) = Self.restarted(count: 3, capacity: 8)
        defer { withExtendedLifetime(directory) {} }
        let replaced = try #require(store.lookup(DiskStoreTests.key(1), keepsFirstRead: true)?.entry.file)
        store.write(DiskStoreTests.entry(1, bodyBytes: Self.body + 10), for: DiskStoreTests.key(1))
        #expect(replaced.isUnchanged(), "renamed over: the old inode keeps its bytes")
        let removed = try #require(store.lookup(DiskStoreTests.key(2), keepsFirstRead: true)?.entry.file)
        #expect(unlink(store.path(for: DiskStoreTests.key(2))) == 0)
        #expect(removed.isUnchanged(), "unlinked: the open inode keeps its bytes")
        // A hard link to it (a backup's `cp -al`) changes its ctime with its link count, not its bytes (retest15 N7).
        let linkedPath = store.path(for: DiskStoreTests.key(2)) + ".backup"
        let stillHeld = try #require(store.lookup(DiskStoreTests.key(1), keepsFirstRead: true)?.entry.file)
        #expect(link(store.path(for: DiskStoreTests.key(1)), linkedPath) == 0)
        defer { unlink(linkedPath) }
        #expect(stillHeld.isUnchanged(), "hard-linked: the inode keeps its bytes")
        let written = try #require(store.lookup(DiskStoreTests.key(3), keepsFirstRead: true)?.entry.file)
        let descriptor = open(store.path(for: DiskStoreTests.key(3)), O_WRONLY)
        #expect(descriptor >= 0)
        var byte: UInt8 = 0x21
        #expect(pwrite(descriptor, &byte, 1, off_t(written.bodyOffset)) == 1)
        close(descriptor)
        #expect(!written.isUnchanged(), "written in place")
    }

    @Test("a range past the end of a file cut short is not read")
    func aShortFileIsNoRange() throws {
        let (store, _, directory) = Self.restarted(capacity: 8)
        defer { withExtendedLifetime(directory) {} }
        let entry = try #require(store.lookup(DiskStoreTests.key(1), keepsFirstRead: true)?.entry)
        let file = try #require(entry.file)
        // Another process cutting the file in place (PageProxy never does): the bytes are no longer there.
        #expect(truncate(store.path(for: DiskStoreTests.key(1)), off_t(file.bodyOffset + 100)) == 0)
        #expect(file.readBody(0..<100) == Array(entry.body[0..<100]))
        #expect(file.readBody(0..<entry.body.count) == nil)
    }
}
