/// The release of PageProxy, reported by `--version` and in the upstream `User-Agent`.
public enum PageProxyVersion {
    /// The release, in semantic versioning (`MAJOR.MINOR.PATCH`).
    public static let current = "0.1.0"
}
