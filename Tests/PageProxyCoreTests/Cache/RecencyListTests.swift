import Testing

@testable import PageProxyCore

/// The order of last use that the store and the memo evict from: oldest first, moves and removals through handles.
@Suite struct RecencyListTests {
    /// The keys from oldest to newest, taking them all out.
    private static func drained(_ list: RecencyList<String>) -> [String] {
        var list = list
        var keys: [String] = []
        while let key = list.removeOldest() { keys.append(key) }
        return keys
    }

    @Test("keys come out least recently used first; a use moves a key to the newest end")
    func oldestFirstAndUsesMove() {
        var list = RecencyList<String>()
        let a = list.insertNewest("a")
        _ = list.insertNewest("b")
        let c = list.insertNewest("c")
        list.moveToNewest(a)
        list.moveToNewest(a)
        #expect(list.oldest?.key == "b")
        #expect(list.key(c) == "c")
        #expect(list.count == 3)
        #expect(Self.drained(list) == ["b", "c", "a"])
    }

    @Test("a handle removed twice, or moved after its removal, changes nothing: no node is reused twice")
    func removedHandleUsedAgain() {
        var list = RecencyList<String>()
        let a = list.insertNewest("a")
        _ = list.insertNewest("b")
        #expect(list.remove(a) == "a")
        #expect(list.remove(a) == nil)
        list.moveToNewest(a)
        #expect(list.count == 1)
        let c = list.insertNewest("c")
        let d = list.insertNewest("d")
        #expect(c != d)
        #expect(list.count == 3)
        #expect(Self.drained(list) == ["b", "c", "d"])
    }

    @Test("a removed key is gone, its node is reused, and one put back as the oldest comes out first")
    func removalReuseAndPutBack() {
        var list = RecencyList<String>()
        let a = list.insertNewest("a")
        let b = list.insertNewest("b")
        _ = list.insertNewest("c")
        #expect(list.remove(b) == "b")
        let d = list.insertNewest("d")
        #expect(d == b)  // the node of "b" is reused: the list does not grow past the most keys held at once
        _ = list.insertOldest("z")
        #expect(list.remove(a) == "a")
        #expect(Self.drained(list) == ["z", "c", "d"])
    }

    @Test("emptied and filled again, through its last key removed by handle")
    func emptiesAndRefills() {
        var list = RecencyList<String>()
        let only = list.insertNewest("x")
        list.remove(only)
        #expect(list.isEmpty)
        #expect(list.oldest == nil)
        #expect(list.removeOldest() == nil)
        _ = list.insertOldest("y")
        _ = list.insertNewest("z")
        #expect(Self.drained(list) == ["y", "z"])
    }

    @Test("the newest keys, most recently used first, at most as many as asked")
    func newestFirst() {
        var list = RecencyList<String>()
        let a = list.insertNewest("a")
        _ = list.insertNewest("b")
        _ = list.insertNewest("c")
        list.moveToNewest(a)
        #expect(list.newest(2) == ["a", "c"])
        #expect(list.newest(10) == ["a", "c", "b"])
        #expect(list.newest(0) == [])
        #expect(RecencyList<String>().newest(3) == [])
    }
}
