import PageProxyCore
import PageProxyServer

/// What a config loads with although PageProxy will not do as it says (an option it ignores, and why), or although it
/// is most likely not what was meant (an environment variable set but empty, a route's `upstream` that gives its page
/// parameter), gathered while the file is parsed: `serve` and `fetch` log each and go on, `check-config` fails on them.
///
/// review19 R5: `endStatuses` with 5xx, 408 or 429 became an error at load in fix14, so a config that had run for
/// months (`[404, 500]`) stopped the server at upgrade. Ignoring such a status only turns an outage's partial 200
/// into the upstream's error; it never loses an item. Stopping every route for it does.
final class ConfigWarnings {
    private(set) var all: [ConfigError] = []

    func add(_ warning: ConfigError) {
        all.append(warning)
    }
}

extension Config {
    /// Logs each warning the file loaded with (`ConfigWarnings`).
    func logWarnings(to logger: Logger) {
        for warning in warnings {
            logger.log(.warning, "config warning", [("field", .string(warning.field)), ("reason", .string(warning.problem))])
        }
    }
}
