import Foundation

/// What a `PageProxy` command printed and how it exited.
struct CommandOutcome {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs the built `PageProxy` binary with `arguments` (and `environment` added to ours) to its end (bounded: 30 s).
func runPageProxy(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandOutcome {
    let output = Pipe()
    let errors = Pipe()
    let process = try await ChildProcess(
        executable: ProxyProcess.binary, arguments: arguments,
        environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
        standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor),
        standardError: .descriptor(errors.fileHandleForWriting.fileDescriptor))
    // Only the child writes now: its end of file is ours to see.
    try output.fileHandleForWriting.close()
    try errors.fileHandleForWriting.close()
    try await poll("PageProxy \(arguments.joined(separator: " ")) exits", limit: .seconds(30)) { !process.isRunning }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return CommandOutcome(status: process.terminationStatus, output: text, errors: errorText)
}
