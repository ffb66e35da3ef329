import Foundation
import PageProxyCore

/// `PageProxy check-config [--config] [PATH]...`: validate config files and say what each holds (like `nginx -t`).
/// Every path given is checked, as `promtool check config a.yml b.yml` does, so that `check-config configs/*.json`
/// checks them all (attack12 U1: the second path was ignored and the command said OK).
enum CheckConfigCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let paths: [String]
        do {
            paths = try CommandOptions.configPaths(arguments)
        } catch {
            printError("PageProxy check-config: \(error.message)")
            return 2
        }
        var code: Int32 = 0
        for path in paths.isEmpty ? ["config.json"] : paths where !check(path) { code = 1 }
        return code
    }

    /// Checks one file, printing its OK line or its error; whether it is valid.
    private static func check(_ path: String) -> Bool {
        do {
            let config = try ConfigLoader.load(path: path, environment: ProcessInfo.processInfo.environment)
            // What `serve` ignores with a warning is an error here, where nothing stops for it (review19 R5).
            guard config.warnings.isEmpty else {
                config.warnings.forEach { printError($0.description) }
                return false
            }
            if let problem = cacheDirectoryProblem(config.cache) {
                printError(ConfigError(file: path, field: "cache.directory", problem: problem).description)
                return false
            }
            let routes = config.routes.map { "\($0.name) (\($0.pagination.name))" }.joined(separator: ", ")
            print("\(path): OK, \(config.routes.count) route(s): \(routes); listening on \(config.listen.address):\(config.listen.port)")
            return true
        } catch {
            printError(error.description)
            return false
        }
    }

    /// Why an enabled cache's directory cannot be one: a file is at its path or along it (attack11 U2: `/etc/passwd`
    /// passed, and the server then ran uncached with `/readyz` 503). A directory not yet there is made at start.
    private static func cacheDirectoryProblem(_ cache: CacheConfig) -> String? {
        guard cache.maxBytes > 0 else { return nil }
        var status = stat()
        guard stat(cache.directory, &status) == 0 else {
            guard errno == ENOTDIR else { return nil }
            return "\"\(cache.directory)\" has a file, not a directory, along its path; the server would run with the cache "
                + "disabled (name a directory, or set cache.maxBytes to 0)"
        }
        guard status.st_mode & S_IFMT != S_IFDIR else { return nil }
        return "\"\(cache.directory)\" is a file, not a directory; the server would run with the cache disabled "
            + "(name a directory, or set cache.maxBytes to 0)"
    }
}
