/// Which stored version of a cached page something was built from: the page's key and the generation the store gave
/// the write that made it.
///
/// DESIGN.md: every in-memory layer above the disk cache answers only what a walk through the cache would. A layer
/// that keeps the stamps of the pages it was built from asks `DiskStore.changeCount(ifCurrent:)` before each use: any write (a
/// 200 replacing the page, a 304 refreshing it), removal (`no-store`, a corrupt file) or eviction of one of them
/// gives it a new generation or none, and the answer is dropped.
package struct PageStamp: Sendable, Hashable {
    package let key: CacheKey
    package let generation: UInt64

    package init(key: CacheKey, generation: UInt64) {
        self.key = key
        self.generation = generation
    }
}
