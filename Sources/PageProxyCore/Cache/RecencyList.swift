/// Keys in the order of their last use, each reached through the handle its insertion returned: inserting, moving to
/// the newest end, removing and taking the oldest are O(1), with no hashing (the caller keeps the handle beside its
/// own value).
///
/// Why (issue 13, sixth pass): the least recently used of a map was found by scanning it, O(entries) under a lock
/// that the epoll loop takes for every memo hit. A doubly linked list in one array: removed nodes are reused, so the
/// array grows to the most keys held at once and no further.
///
/// A handle is valid from the insertion that returned it until its removal (`remove`, `removeOldest`); using it after
/// that is a programming error (the caller clears its copy when it removes it). A handle removed twice, or moved after
/// its removal, before its node is reused changes nothing (a second removal would put the node on the reuse list
/// twice: two later keys in one node).
package struct RecencyList<Key> {
    package struct Handle: Equatable, Sendable {
        fileprivate let index: Int
    }

    fileprivate struct Node {
        var key: Key?
        var older: Int
        var newer: Int
    }

    private var nodes: [Node] = []
    /// Removed nodes, reused by the next insertions.
    private var unused: [Int] = []
    private var oldestIndex = -1
    private var newestIndex = -1
    /// How many keys are in the list.
    package private(set) var count = 0

    package init() {}

    package var isEmpty: Bool { count == 0 }

    /// The least recently used key and its handle.
    package var oldest: (handle: Handle, key: Key)? {
        guard oldestIndex >= 0, let key = nodes[oldestIndex].key else { return nil }
        return (Handle(index: oldestIndex), key)
    }

    /// At most `limit` keys, the most recently used first (O(limit)).
    package func newest(_ limit: Int) -> [Key] {
        var keys: [Key] = []
        var index = newestIndex
        while index >= 0, keys.count < limit {
            if let key = nodes[index].key { keys.append(key) }
            index = nodes[index].older
        }
        return keys
    }

    /// The key `handle` stands for.
    package func key(_ handle: Handle) -> Key? { nodes[handle.index].key }

    /// Adds `key` as the most recently used.
    package mutating func insertNewest(_ key: Key) -> Handle {
        let index = allocate(key)
        link(index, after: newestIndex)
        return Handle(index: index)
    }

    /// Adds `key` as the least recently used (put back: it was taken out and is still the oldest).
    package mutating func insertOldest(_ key: Key) -> Handle {
        let index = allocate(key)
        nodes[index].older = -1
        nodes[index].newer = oldestIndex
        if oldestIndex >= 0 { nodes[oldestIndex].older = index } else { newestIndex = index }
        oldestIndex = index
        count += 1
        return Handle(index: index)
    }

    /// Marks `handle`'s key as the most recently used.
    package mutating func moveToNewest(_ handle: Handle) {
        guard handle.index != newestIndex, nodes[handle.index].key != nil else { return }
        unlink(handle.index)
        link(handle.index, after: newestIndex)
    }

    /// Takes `handle`'s key out of the list; the handle is no longer valid.
    @discardableResult
    package mutating func remove(_ handle: Handle) -> Key? {
        guard nodes[handle.index].key != nil else { return nil }
        unlink(handle.index)
        let key = nodes[handle.index].key
        nodes[handle.index].key = nil
        unused.append(handle.index)
        return key
    }

    /// Takes the least recently used key out of the list.
    package mutating func removeOldest() -> Key? {
        guard oldestIndex >= 0 else { return nil }
        return remove(Handle(index: oldestIndex))
    }

    private mutating func allocate(_ key: Key) -> Int {
        if let index = unused.popLast() {
            nodes[index].key = key
            return index
        }
        nodes.append(Node(key: key, older: -1, newer: -1))
        return nodes.count - 1
    }

    /// Links the unlinked node `index` right after `older` (-1: as the only one), as the newest.
    private mutating func link(_ index: Int, after older: Int) {
        nodes[index].older = older
        nodes[index].newer = -1
        if older >= 0 { nodes[older].newer = index } else { oldestIndex = index }
        newestIndex = index
        count += 1
    }

    private mutating func unlink(_ index: Int) {
        let (older, newer) = (nodes[index].older, nodes[index].newer)
        if older >= 0 { nodes[older].newer = newer } else { oldestIndex = newer }
        if newer >= 0 { nodes[newer].older = older } else { newestIndex = older }
        nodes[index].older = -1
        nodes[index].newer = -1
        count -= 1
    }
}

extension RecencyList: Sendable where Key: Sendable {}
extension RecencyList.Node: Sendable where Key: Sendable {}
