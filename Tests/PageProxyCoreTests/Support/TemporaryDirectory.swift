import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-test-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Every regular file below the directory, as paths relative to it, sorted; without the files by which processes
    /// sharing a cache directory coordinate (`.pageproxy-lock`, `.pageproxy-instance-…`).
    var files: [String] { allFiles.filter { !$0.hasPrefix(".pageproxy-") } }

    /// Every regular file below the directory, as paths relative to it, sorted.
    var allFiles: [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(name)
            }
        }
        return found.sorted()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
