// swift-tools-version:6.1
// Examples of PageProxyCore as a library, built by `.ci/run` (`swift build --package-path Examples`). Each walks the
// mock upstream that `swift run PageProxy mock` starts on 127.0.0.1:8081.
import PackageDescription

let package = Package(
    name: "PageProxyExamples",
    dependencies: [
        // PageProxy itself, by path: the library exactly as this checkout has it.
        .package(name: "PageProxy", path: "..")
    ],
    targets: [
        // A typed request: the mock's GitHub-style route decoded as `Item`s.
        .executableTarget(name: "WalkGitHubItems", dependencies: [.product(name: "PageProxyCore", package: "PageProxy")]),
        // Raw item bytes, one per line (NDJSON), through a disk cache with retries.
        .executableTarget(name: "ItemsAsNDJSON", dependencies: [.product(name: "PageProxyCore", package: "PageProxy")]),
    ]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.swiftLanguageMode(.v6))
    target.swiftSettings = settings
}
