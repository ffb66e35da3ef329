import CLinux

/// `PAGEPROXY_HUGE_PAGES`: whether the heaps cache entries are read into are advised huge pages (CLinux.c,
/// `pageproxy_advise_huge_heap`). `auto` (the default) advises only where the kernel's THP modes make it safe
/// (`enabled` = `madvise`, `defrag` = `defer` or `never`: no fault compacts memory in line); `on` wherever THP is
/// `madvise`, accepting that a fault may stall a thread to compact memory; `off` never.
enum HugePagePolicy: String {
    case auto, on, off

    /// The policy the environment asks for (`auto` when unset), or the message for a value that is none of them.
    static func from(environment: [String: String]) -> Result<HugePagePolicy, Invalid> {
        guard let value = environment["PAGEPROXY_HUGE_PAGES"] else { return .success(.auto) }
        guard let policy = HugePagePolicy(rawValue: value.lowercased()) else {
            return .failure(Invalid(message: "$PAGEPROXY_HUGE_PAGES: expected on, off or auto, not \"\(value)\""))
        }
        return .success(policy)
    }

    struct Invalid: Error {
        let message: String
    }

    /// Tells CLinux; before the first cache read.
    func apply() {
        let policy: Int32 =
            switch self {
            case .auto: 0
            case .on: 1
            case .off: 2
            }
        pageproxy_set_huge_pages(policy)
    }
}
