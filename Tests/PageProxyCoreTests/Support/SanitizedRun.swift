import Foundation

/// Whether the suite runs under AddressSanitizer or ThreadSanitizer (`scripts/sanitizers.sh` sets their options):
/// their allocator replaces glibc's malloc, so tests of glibc's heaps (huge-page advice, arena padding) do not apply.
enum SanitizedRun {
    static let isOn: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
    }()
}
