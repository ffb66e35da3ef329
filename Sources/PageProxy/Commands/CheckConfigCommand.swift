import Foundation
import PageProxyCore

/// `PageProxy check-config [--config] [PATH]`: validate a config file and say what it holds (like `nginx -t`).
enum CheckConfigCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let path: String
        do {
            path = try CommandOptions.configPath(arguments)
        } catch {
            printError("PageProxy check-config: \(error.message)")
            return 2
        }
        do {
            let config = try ConfigLoader.load(path: path, environment: ProcessInfo.processInfo.environment)
            let routes = config.routes.map { "\($0.name) (\($0.pagination.name))" }.joined(separator: ", ")
            print("\(path): OK, \(config.routes.count) route(s): \(routes); listening on \(config.listen.address):\(config.listen.port)")
            return 0
        } catch {
            printError(error.description)
            return 1
        }
    }
}
