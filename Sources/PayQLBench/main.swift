// `payql-bench NAME [options]`: micro-benchmarks driven by Benchmarks/*/run.sh.
// Each benchmark lives in its own file as `enum <Name>Benchmark { static func run(_:) async throws }`.
#if canImport(Glibc)
import Glibc
#endif

let benchArguments = Array(CommandLine.arguments.dropFirst())
switch benchArguments.first {
case "postgres":
    try await PostgresBenchmark.run(Array(benchArguments.dropFirst()))
case "httpclient":
    try await HTTPClientBenchmark.run(Array(benchArguments.dropFirst()))
default:
    print("usage: payql-bench postgres|httpclient [options]  (see Benchmarks/*/README.md)")
    exit(2)
}
