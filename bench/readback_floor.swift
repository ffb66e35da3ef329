// The floor of a read-back: open/fstat/read/close of every entry file under a cache directory, C-like (one reused
// buffer, no parsing), as many rounds as asked; prints the best and the median round in ms.
// Built by bench/readback_profile.py with `swiftc -O`; usage: readback_floor <cache directory> [rounds]
import Glibc

func entryPaths(_ directory: String) -> [String] {
    var paths: [String] = []
    guard let top = opendir(directory) else { return [] }
    defer { closedir(top) }
    while let item = readdir(top) {
        let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard name.utf8.count == 2, let folder = opendir("\(directory)/\(name)") else { continue }
        while let inner = readdir(folder) {
            let file = withUnsafeBytes(of: inner.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if file.hasSuffix(".entry") { paths.append("\(directory)/\(name)/\(file)") }
        }
        closedir(folder)
    }
    return paths.sorted()
}

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) * 1e3 + Double(spec.tv_nsec) / 1e6
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fatalError("usage: readback_floor <cache directory> [rounds]") }
let paths = entryPaths(arguments[1])
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 22, alignment: 64)
var times: [Double] = []
var bytes = 0
for _ in 0..<rounds {
    bytes = 0
    let started = now()
    for path in paths {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { continue }
        var info = stat()
        fstat(fd, &info)
        let size = min(Int(info.st_size), 1 << 22)
        var done = 0
        while done < size {
            let count = read(fd, buffer + done, size - done)
            if count <= 0 { break }
            done += count
        }
        bytes += done
        close(fd)
    }
    times.append(now() - started)
}
times.sort()
print("files \(paths.count) bytes \(bytes) best_ms \(times[0]) median_ms \(times[times.count / 2])")
