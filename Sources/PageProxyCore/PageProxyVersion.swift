/// The release of PageProxy, reported by `--version` and in the upstream `User-Agent`.
public enum PageProxyVersion {
    public static let current = "0.1.0"
}
