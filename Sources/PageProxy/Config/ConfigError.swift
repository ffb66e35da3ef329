/// A problem with the configuration: which file, which field and what is wrong.
///
/// `field` is a path such as `routes[0].pagination.scheme`, an environment variable such as
/// `$PAGEPROXY_PORT`, or `""` when the problem concerns the whole file. Messages never contain header
/// values, which may hold secrets.
struct ConfigError: Error, CustomStringConvertible, Equatable {
    var file: String
    var field: String
    var problem: String

    /// `config.json: routes[0].pagination.scheme: unknown scheme "pages"; expected one of …`.
    var description: String {
        field.isEmpty ? "\(file): \(problem)" : "\(file): \(field): \(problem)"
    }
}
