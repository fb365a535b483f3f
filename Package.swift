// swift-tools-version:6.0
// PayQL: one GraphQL endpoint over Razorpay, Cashfree, Instamojo and Setu.
// Targets follow docs/DESIGN.md: each owns one thing, dependencies point down.
import PackageDescription

/// Upcoming features that keep every target's surface honest: `any` spelled out on
/// existentials, imports internal unless marked, members visible only where their module is imported.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "PayQL",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "payql", targets: ["PayQL"]),
        .executable(name: "payql-bench", targets: ["PayQLBench"]),
        .library(name: "GraphQL", targets: ["GraphQL"]),
    ],
    targets: [
        // MARK: C libraries from Debian, wrapped as system-library targets.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        /// Typed, non-variadic C wrappers for what Swift cannot call (variadic functions, macros).
        .target(name: "CPayQLShims", dependencies: ["CCurl", "CMicroHTTPD"]),
        /// glibc's posix_spawn extras that Swift's Glibc module does not declare.
        .target(name: "CSpawn"),

        // MARK: Foundations (standard library only).
        /// Ordered JSON values, a fast parser and an exact writer.
        .target(name: "JSON", swiftSettings: strictSettings),
        /// What every target shares: the lock boxes (`Locked`, `ReadWriteLocked`, over pthreads), hex digits,
        /// form/percent encoding, civil-calendar arithmetic. No I/O.
        .target(name: "Support", swiftSettings: strictSettings),
        /// The Prometheus registry (counters, gauges, histograms) any target can count into.
        .target(name: "Metrics", dependencies: ["Support"], swiftSettings: strictSettings),
        /// The GraphQL engine: language, schema, validation, execution, introspection. No I/O.
        .target(name: "GraphQL", dependencies: ["JSON", "Support"], swiftSettings: strictSettings),
        /// HMAC, SHA-2, CSPRNG and constant-time comparison over libcrypto.
        .target(name: "Crypto", dependencies: ["COpenSSL", "Support"], swiftSettings: strictSettings),

        // MARK: I/O wrappers.
        /// Child processes over posix_spawn (Foundation's Process crashes with many descriptors open).
        .target(name: "ChildProcess", dependencies: ["CSpawn"], swiftSettings: strictSettings),
        /// HTTP/1.1 server over libmicrohttpd: requests in, responses out, async handlers.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CPayQLShims", "JSON", "Support"], swiftSettings: strictSettings),
        /// GraphQL over HTTP: request decoding, negotiation, persisted queries, cost limits, ops endpoints.
        .target(name: "GraphQLHTTP", dependencies: ["HTTPServer", "GraphQL", "JSON", "Crypto", "Metrics", "Support"], swiftSettings: strictSettings),
        /// PostgreSQL over libpq: pool, typed rows, transactions, migrations, embedded cluster.
        .target(name: "Postgres", dependencies: ["CLibPQ", "ChildProcess", "Support"], swiftSettings: strictSettings),
        /// Async HTTP client over the libcurl multi interface.
        .target(name: "HTTPClient", dependencies: ["CCurl", "CPayQLShims", "Support"], swiftSettings: strictSettings),

        // MARK: Payments.
        /// The vocabulary Gateway and Providers share: Amount, Currency, exact decimal text,
        /// ProviderName, unified statuses, Secret. No I/O, no GraphQL words.
        .target(name: "PaymentsCore", swiftSettings: strictSettings),
        /// One adapter per provider: wire models, transformers, status and error mapping, webhooks.
        .target(name: "Providers", dependencies: ["PaymentsCore", "HTTPClient", "Crypto", "JSON", "Support"], swiftSettings: strictSettings),
        /// Simulators of the four providers' REST APIs; shares no wire-model code with Providers.
        .target(name: "Sandbox", dependencies: ["HTTPServer", "HTTPClient", "Crypto", "Support"], swiftSettings: strictSettings),

        /// The payments domain: the served schema, resolvers, services, store, auth, idempotency, webhooks.
        .target(
            name: "Gateway",
            dependencies: ["GraphQL", "GraphQLHTTP", "HTTPServer", "Postgres", "HTTPClient", "PaymentsCore", "Providers", "Crypto", "JSON", "Metrics", "Support"],
            swiftSettings: strictSettings
        ),

        // MARK: Executables.
        .executableTarget(
            name: "PayQL",
            dependencies: ["GraphQL", "GraphQLHTTP", "HTTPServer", "Postgres", "HTTPClient", "PaymentsCore", "Providers", "Gateway", "Sandbox", "Crypto", "JSON", "Metrics", "Support"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "PayQLBench",
            dependencies: ["GraphQL", "Postgres", "HTTPClient", "JSON"],
            swiftSettings: strictSettings
        ),
        /// libFuzzer entry for the GraphQL parser; see scripts/fuzz-parser.sh.
        .executableTarget(name: "PayQLFuzz", dependencies: ["GraphQL"], swiftSettings: strictSettings),

        // MARK: Tests.
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strictSettings),
        .testTarget(name: "GraphQLTests", dependencies: ["GraphQL", "JSON", "ChildProcess"], resources: [.copy("Fixtures")], swiftSettings: strictSettings),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"], swiftSettings: strictSettings),
        .testTarget(name: "SupportTests", dependencies: ["Support"], swiftSettings: strictSettings),
        .testTarget(name: "ChildProcessTests", dependencies: ["ChildProcess"], swiftSettings: strictSettings),
        /// Test helpers shared by test targets: a raw-socket HTTP/1.1 client.
        .target(name: "HTTPTestSupport", dependencies: ["HTTPServer"], path: "Tests/HTTPTestSupport", swiftSettings: strictSettings),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPTestSupport", "HTTPClient", "JSON"], swiftSettings: strictSettings),
        .testTarget(name: "GraphQLHTTPTests", dependencies: ["GraphQLHTTP", "HTTPServer", "HTTPTestSupport", "HTTPClient", "GraphQL", "JSON", "Metrics"], swiftSettings: strictSettings),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "ChildProcess", "HTTPTestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPServer", "HTTPTestSupport", "ChildProcess"], swiftSettings: strictSettings),
        .testTarget(name: "ProvidersTests", dependencies: ["PaymentsCore", "Providers", "Sandbox", "HTTPClient", "HTTPServer", "HTTPTestSupport", "Crypto", "JSON"], resources: [.copy("Fixtures")], swiftSettings: strictSettings),
        .testTarget(name: "PayQLCommandTests", dependencies: ["ChildProcess", "Crypto", "HTTPTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "GatewayTests",
            dependencies: ["Gateway", "GraphQL", "GraphQLHTTP", "HTTPServer", "HTTPClient", "Postgres", "PaymentsCore", "Providers", "Sandbox",
                           "HTTPTestSupport", "Crypto", "JSON", "ChildProcess", "Metrics", "Support"],
            exclude: ["Fixtures"], swiftSettings: strictSettings
        ),
        .testTarget(name: "SandboxTests", dependencies: ["Sandbox", "HTTPServer", "HTTPClient", "HTTPTestSupport", "Crypto", "JSON"], swiftSettings: strictSettings),
    ]
)
