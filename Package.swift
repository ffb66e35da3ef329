// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "PageProxy",
    products: [
        .library(name: "PageProxyCore", targets: ["PageProxyCore"]),
        .executable(name: "PageProxy", targets: ["PageProxy"]),
    ],
    targets: [
        .target(name: "PageProxyCore"),
        .executableTarget(name: "PageProxy", dependencies: ["PageProxyCore"]),
        // bench/: item splicing against JSONSerialization (swift run -c release SpliceBench).
        .executableTarget(name: "SpliceBench", dependencies: ["PageProxyCore"]),
        // bench/: the typed Decodable walk against decoding the merged array (swift run -c release DecodeBench).
        .executableTarget(name: "DecodeBench", dependencies: ["PageProxyCore"]),
        .testTarget(name: "PageProxyCoreTests", dependencies: ["PageProxyCore"]),
        // The library as its users see it: `import PageProxyCore` only, never `@testable`.
        .testTarget(name: "PageProxyCorePublicAPITests", dependencies: ["PageProxyCore"]),
        // Fixtures/ holds test-only TLS material, read from the source tree.
        .testTarget(name: "PageProxyTests", dependencies: ["PageProxy", "PageProxyCore"], exclude: ["Fixtures"]),
    ]
)

// One set of settings for every target, as swift-log does.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    // SE-0335: `any` is spelled out for existential types.
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    // SE-0444: a file sees only the members of modules it imports itself.
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.swiftLanguageMode(.v6))
    target.swiftSettings = settings
}
