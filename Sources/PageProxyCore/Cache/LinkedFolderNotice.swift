import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Tells once per fan-out folder that the pages whose keys fall under it are never stored: the folder is a symbolic
/// link (retest15 N5: nothing is written through such a link, attack15 L1, and nothing said so: an operator who moved
/// part of the cache to another disk with a link had 1/256 of the keys uncached per folder, invisibly), or, as the
/// store's `unwritableFolderNotice`, a folder that refuses writes while the directory takes them (attack17 L3).
package final class LinkedFolderNotice: Sendable {
    private let told = Mutex<Set<String>>([])
    private let tell: @Sendable (_ folder: String) -> Void

    package init(tell: @escaping @Sendable (_ folder: String) -> Void) {
        self.tell = tell
    }

    /// Tells `tell` about `folder` unless it did before.
    package func note(_ folder: String) {
        if told.withLock({ $0.insert(folder).inserted }) { tell(folder) }
    }
}

extension CacheFileSystem.Failure {
    /// A write refused because its fan-out folder is no directory of its own (`DiskStore.refuseLinkedFolder`).
    package static func linkedFolder(_ folder: String) -> Self {
        Self(call: "fan-out folder", path: folder, errno: ELOOP)
    }

    package var isLinkedFolder: Bool { call == "fan-out folder" && errno == ELOOP }
}
