// The floor of sending a merged read-back straight from the entry files (issue 13, sixth pass), against holding the
// bodies in fresh memory as the proxy does now. One fresh process per run (a restarted proxy's memory is all new):
//
//   held      each entry file opened, its head read into one reused buffer, its body into an array of its own
//             (fresh memory: page faults), verified (XXH64 against the header's), closed; then the bodies are sent
//             with gathering writes (1,024 parts a `writev`), `,` between them (the proxy's shape since h13-readback5)
//   sendfile  each entry file opened and read whole into ONE reused buffer, verified, its descriptor kept open;
//             then, all verified (the answer's length is known before its first byte), `,` and the body of each
//             sent with `send(MSG_MORE)` and `sendfile` from the open descriptor, which is then closed
//
// The bytes go over a loopback TCP connection to a thread of this process that reads and drops them. Prints the
// sending thread's CPU ms and minor faults (`getrusage(RUSAGE_THREAD)`), the wall ms until the reader has them all.
// Built by bench/readback_send_floor.py with `swiftc -O` together with Sources/PageProxyCore/Cache/XXHash64.swift.
// usage: readback_send_floor <cache directory> held|sendfile
import Foundation
import Glibc

func entryPaths(_ directory: String) -> [String] {
    var paths: [String] = []
    for folder in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where folder.utf8.count == 2 {
        for file in (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(folder)")) ?? [] where file.hasSuffix(".entry") {
            paths.append("\(directory)/\(folder)/\(file)")
        }
    }
    return paths.sorted()
}

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) * 1e3 + Double(spec.tv_nsec) / 1e6
}

func threadUsage() -> (cpuMs: Double, faults: Int) {
    var usage = rusage()
    getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD (GNU), which Swift's Glibc lacks
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3
    return (cpu, usage.ru_minflt)
}

func bigEndian(_ pointer: UnsafeRawPointer, _ offset: Int, _ count: Int) -> Int {
    (0..<count).reduce(0) { $0 << 8 | Int(pointer.load(fromByteOffset: offset + $1, as: UInt8.self)) }
}

/// Where the body starts, its length and the XXH64 its header records (CacheEntryFormat, version 2).
func layout(_ head: UnsafeRawPointer) -> (bodyStart: Int, bodyLength: Int, checksum: UInt64) {
    let headerLength = bigEndian(head, 8, 4)
    // prefix 28, then key hex 64, status 2, stored-at 8, fresh-until 8, flags 1: the body's XXH64.
    return (28 + headerLength, bigEndian(head, 12, 8), UInt64(truncatingIfNeeded: bigEndian(head, 28 + 64 + 2 + 8 + 8 + 1, 8)))
}

/// An entry file opened for reading, and its size.
func openEntry(_ path: String) -> (fd: Int32, size: Int)? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    var info = stat()
    return fstat(fd, &info) == 0 ? (fd, Int(info.st_size)) : nil
}

func writeAll(_ socket: Int32, _ parts: [UnsafeRawBufferPointer]) {
    var index = 0
    while index < parts.count {
        let batch = parts[index..<min(parts.count, index + 1024)]
        var vectors = batch.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
        var left = batch.reduce(0) { $0 + $1.count }
        var first = 0
        while left > 0 {
            let sent = vectors.withUnsafeMutableBufferPointer { writev(socket, $0.baseAddress! + first, Int32($0.count - first)) }
            guard sent > 0 else { fatalError("writev \(errno)") }
            left -= sent
            var consumed = sent
            while first < vectors.count, consumed >= vectors[first].iov_len {
                consumed -= vectors[first].iov_len
                first += 1
            }
            if consumed > 0 {
                vectors[first].iov_base += consumed
                vectors[first].iov_len -= consumed
            }
        }
        index += batch.count
    }
}

let arguments = CommandLine.arguments
let copyBufferBytes = arguments.count == 3 && arguments[2].hasPrefix("copy") ? (Int(arguments[2].dropFirst(4)) ?? 0) << 10 : 0
guard arguments.count == 3, ["held", "sendfile", "sendfile-cork", "splice"].contains(arguments[2]) || copyBufferBytes > 0 else {
    fatalError("usage: readback_send_floor <cache directory> held|sendfile|sendfile-cork|splice|copy<KB>")
}
let paths = entryPaths(arguments[1])
let mode = arguments[2]

// The reader: a loopback TCP connection drained by a thread of its own.
let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_addr.s_addr = inet_addr("127.0.0.1")
var length = socklen_t(MemoryLayout<sockaddr_in>.size)
withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = bind(listener, $0, length) } }
listen(listener, 1)
withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) } }
let sender = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = connect(sender, $0, length) } }
let receiver = accept(listener, nil, nil)
let received = DispatchSemaphore(value: 0)
nonisolated(unsafe) var receivedBytes = 0
nonisolated(unsafe) var receivedAt = 0.0
Thread.detachNewThread {
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 18, alignment: 64)
    while true {
        let count = read(receiver, buffer, 1 << 18)
        if count <= 0 { break }
        receivedBytes += count
    }
    receivedAt = now()
    received.signal()
}

let started = now()
let before = threadUsage()
var sendStarted = started
var sendBefore = before
var comma: UInt8 = UInt8(ascii: ",")
var sentBytes = 0
if mode == "held" {
    let head = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 64)
    var bodies: [[UInt8]] = []
    for path in paths {
        guard let (fd, _) = openEntry(path) else { continue }
        _ = pread(fd, head, 4096, 0)
        let (start, bodyLength, checksum) = layout(head)
        let body = [UInt8](unsafeUninitializedCapacity: bodyLength) { buffer, initialized in
            initialized = pread(fd, buffer.baseAddress, bodyLength, off_t(start))
        }
        close(fd)
        guard body.count == bodyLength, XXHash64.hash(body) == checksum else { fatalError("\(path): not verified") }
        bodies.append(body)
    }
    sendStarted = now()
    sendBefore = threadUsage()
    withExtendedLifetime(bodies) {
        var parts: [UnsafeRawBufferPointer] = []
        withUnsafePointer(to: &comma) { commaPointer in
            for (index, body) in bodies.enumerated() {
                if index > 0 { parts.append(UnsafeRawBufferPointer(start: commaPointer, count: 1)) }
                parts.append(body.withUnsafeBytes { $0 })  // the arrays outlive the writes (withExtendedLifetime)
                sentBytes += body.count + (index > 0 ? 1 : 0)
            }
            writeAll(sender, parts)
        }
    }
} else {
    // sendfile, sendfile-cork and copy<KB> open and verify alike; they differ in the send (timed on its own too).
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 22, alignment: 64)
    var files: [(fd: Int32, start: Int, length: Int)] = []
    for path in paths {
        guard let (fd, fileSize) = openEntry(path) else { continue }
        let size = min(fileSize, 1 << 22)
        guard pread(fd, buffer, size, 0) == size else { fatalError("\(path): short read") }
        let (start, bodyLength, checksum) = layout(buffer)
        guard start + bodyLength == size,
            XXHash64.hash(UnsafeRawBufferPointer(start: buffer + start, count: bodyLength)) == checksum
        else { fatalError("\(path): not verified") }
        files.append((fd, start, bodyLength))
    }
    sendStarted = now()
    sendBefore = threadUsage()
    if mode == "splice" {
        // Glibc's Swift module does not export splice(2) (a _GNU_SOURCE call): looked up by name.
        typealias Splice = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "splice") else { fatalError("no splice") }
        let splice = unsafeBitCast(symbol, to: Splice.self)
        // Each body spliced into a pipe of 1 MB (page references, no copy), each comma written into it; the pipe
        // spliced into the socket whenever it holds ~256 KB, so that TCP sees large writes.
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { fatalError("pipe") }
        _ = fcntl(ends[0], 1031, 1 << 20)  // F_SETPIPE_SZ
        var queued = 0
        func drain(_ atLeast: Int) {
            while queued > atLeast {
                let moved = splice(ends[0], nil, sender, nil, queued, UInt32(4 | 1))  // SPLICE_F_MORE | SPLICE_F_MOVE
                guard moved > 0 else { fatalError("splice to socket \(errno)") }
                queued -= moved
            }
        }
        for (index, file) in files.enumerated() {
            if index > 0 {
                guard write(ends[1], &comma, 1) == 1 else { fatalError("write pipe") }
                queued += 1
            }
            var offset = Int64(file.start)
            var left = file.length
            while left > 0 {
                let moved = splice(file.fd, &offset, ends[1], nil, left, 0)
                if moved < 0 && errno == EAGAIN { drain(0); continue }
                guard moved > 0 else { fatalError("splice from file \(errno)") }
                left -= moved
                queued += moved
            }
            if queued >= 256 << 10 { drain(0) }
            close(file.fd)
            sentBytes += file.length + (index > 0 ? 1 : 0)
        }
        drain(0)
    } else if copyBufferBytes > 0 {
        // The bodies and the commas between them read (`pread`) into one reused buffer, sent whenever it is full.
        let staging = UnsafeMutableRawPointer.allocate(byteCount: copyBufferBytes, alignment: 4096)
        var filled = 0
        func flush() {
            var done = 0
            while done < filled {
                let sent = send(sender, staging + done, filled - done, 0)
                guard sent > 0 else { fatalError("send \(errno)") }
                done += sent
            }
            filled = 0
        }
        for (index, file) in files.enumerated() {
            if index > 0 {
                if filled == copyBufferBytes { flush() }
                staging.storeBytes(of: comma, toByteOffset: filled, as: UInt8.self)
                filled += 1
            }
            var done = 0
            while done < file.length {
                if filled == copyBufferBytes { flush() }
                let count = min(file.length - done, copyBufferBytes - filled)
                guard pread(file.fd, staging + filled, count, off_t(file.start + done)) == count else { fatalError("short pread") }
                filled += count
                done += count
            }
            close(file.fd)
            sentBytes += file.length + (index > 0 ? 1 : 0)
        }
        flush()
    } else {
        var on: Int32 = 1
        if mode == "sendfile-cork" { setsockopt(sender, Int32(IPPROTO_TCP), TCP_CORK, &on, socklen_t(MemoryLayout<Int32>.size)) }
        for (index, file) in files.enumerated() {
            if index > 0 { _ = send(sender, &comma, 1, mode == "sendfile-cork" ? 0 : Int32(MSG_MORE)) }
            var offset = off_t(file.start)
            var left = file.length
            while left > 0 {
                let sent = sendfile(sender, file.fd, &offset, left)
                guard sent > 0 else { fatalError("sendfile \(errno)") }
                left -= sent
            }
            close(file.fd)
            sentBytes += file.length + (index > 0 ? 1 : 0)
        }
        on = 0
        if mode == "sendfile-cork" { setsockopt(sender, Int32(IPPROTO_TCP), TCP_CORK, &on, socklen_t(MemoryLayout<Int32>.size)) }
    }
}
let after = threadUsage()
shutdown(sender, Int32(SHUT_WR))
received.wait()
guard receivedBytes == sentBytes else { fatalError("sent \(sentBytes), received \(receivedBytes)") }
let wall = receivedAt - started
print(String(format: "%@ files %d bytes %d wall_ms %.2f sender_cpu_ms %.2f sender_faults %d MBps %.0f send_ms %.2f send_cpu_ms %.2f",
    mode, paths.count, sentBytes, wall, after.cpuMs - before.cpuMs, after.faults - before.faults, Double(sentBytes) / wall / 1e3,
    receivedAt - sendStarted, after.cpuMs - sendBefore.cpuMs))
