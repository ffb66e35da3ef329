import Foundation
import PageProxyCore
import Synchronization

/// The progress line `PageProxy fetch` draws on standard error when it is a terminal: pages done (of the total when
/// the scheme knows it), items (of the upstream's total when it states one), the rate, the time elapsed and the
/// time left when it can be told. Redrawn in place, at most ten times a second; nothing at all when disabled.
final class FetchProgressLine: Sendable {
    private struct State {
        var lastDrawn: ContinuousClock.Instant?
        /// The latest progress, drawn or not.
        var latest: WalkRecord.Progress?
    }

    private let enabled: Bool
    private let state = Mutex(State())

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Redraws the line for `progress` unless the last draw was under 100 ms ago.
    func update(_ progress: WalkRecord.Progress) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let due = state.withLock { state in
            state.latest = progress
            if let last = state.lastDrawn, now - last < .milliseconds(100) { return false }
            state.lastDrawn = now
            return true
        }
        if due { draw(progress) }
    }

    /// Draws the last state and ends the line, if there was any progress, so that what follows starts on a line of
    /// its own.
    func finish() {
        guard enabled, let latest = state.withLock({ $0.latest }) else { return }
        draw(latest)
        DescriptorOutput.write("\n", to: STDERR_FILENO)
    }

    private func draw(_ progress: WalkRecord.Progress) {
        // `\r` and "erase to the end of the line" (ECMA-48 EL): the line is redrawn where it stands.
        DescriptorOutput.write("\r\u{1B}[K" + Self.text(progress), to: STDERR_FILENO)
    }

    /// `pages 5/13  items 100/250  412 items/s  elapsed 0:02  left 0:03`.
    static func text(_ progress: WalkRecord.Progress) -> String {
        let seconds = Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(progress.items) / seconds : 0
        var parts = ["pages \(progress.pages)" + (progress.pagesKnown.map { "/\($0)" } ?? "")]
        parts.append("items \(progress.items)" + (progress.totalItems.map { "/\($0)" } ?? ""))
        parts.append("\(Int(rate.rounded())) items/s")
        parts.append("elapsed \(clock(seconds))")
        // What is left, from the items when the upstream gave a total, else from the pages when the scheme knows them.
        var left: Double?
        if let total = progress.totalItems, rate > 0 {
            left = Double(max(0, total - progress.items)) / rate
        } else if let pages = progress.pagesKnown, progress.pages > 0 {
            left = Double(max(0, pages - progress.pages)) * seconds / Double(progress.pages)
        }
        if let left { parts.append("left \(clock(left))") }
        return parts.joined(separator: "  ")
    }

    /// `m:ss`, or `h:mm:ss` past an hour.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        let padded = rest < 10 ? "0\(rest)" : String(rest)
        if hours > 0 { return "\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(padded)" }
        return "\(minutes):\(padded)"
    }
}
