// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "PageProxy",
    products: [
        .library(name: "PageProxyCore", targets: ["PageProxyCore"]),
        // The mock paginated upstream, for users' own Swift tests: `MockUpstream.start(...)` in process.
        .library(name: "PageProxyMock", targets: ["PageProxyMock"]),
        .executable(name: "PageProxy", targets: ["PageProxy"]),
    ],
    targets: [
        // Linux's epoll and eventfd headers, for the socket layer's event loop (Glibc's module does not export them).
        .target(name: "CLinux"),
        .target(name: "PageProxyCore", dependencies: ["CLinux"]),
        // The HTTP/1.1 server: connections, the single-use response writer, the error renderer, the logger.
        .target(name: "PageProxyServer", dependencies: ["PageProxyCore", "CLinux"]),
        .target(name: "PageProxyMock", dependencies: ["PageProxyServer", "PageProxyCore"]),
        .executableTarget(name: "PageProxy", dependencies: ["PageProxyMock", "PageProxyServer", "PageProxyCore"]),
        // bench/: item splicing against JSONSerialization (swift run -c release SpliceBench).
        .executableTarget(name: "SpliceBench", dependencies: ["PageProxyCore"]),
        // bench/: the typed Decodable walk against decoding the merged array (swift run -c release DecodeBench).
        .executableTarget(name: "DecodeBench", dependencies: ["PageProxyCore"]),
        .testTarget(name: "PageProxyCoreTests", dependencies: ["PageProxyCore", "PageProxyMock"]),
        // The library as its users see it: `import PageProxyCore` only, never `@testable`.
        .testTarget(name: "PageProxyCorePublicAPITests", dependencies: ["PageProxyCore"]),
        // Fixtures/ holds test-only TLS material, read from the source tree.
        .testTarget(
            name: "PageProxyTests", dependencies: ["PageProxy", "PageProxyMock", "PageProxyServer", "PageProxyCore"], exclude: ["Fixtures"]),
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
