import HTTPClient
#if canImport(Glibc)
import Glibc
#endif

/// `payql-bench httpclient --url URL [--concurrency N] [--duration S] [--warmup S] [--method M] [--body-bytes B]`
///
/// N tasks each send requests back to back through one shared ``HTTPClient`` for S
/// seconds (after S warm-up seconds that are not counted), then one JSON line is
/// printed: requests/s, latency percentiles in ms, errors and connections opened.
/// Driven by Benchmarks/httpclient/run.sh, beside an aiohttp client doing the same.
enum HTTPClientBenchmark {
    struct Options {
        var url = "http://127.0.0.1:18080/"
        var concurrency = 1
        var duration = 5.0
        var warmup = 1.0
        var method = "GET"
        var bodyBytes = 0
    }

    static func run(_ arguments: [String]) async throws {
        let options = try parse(arguments)
        let client = try HTTPClient(configuration: .init(
            maxConnectionsPerHost: max(options.concurrency, 1),
            maxTotalConnections: max(options.concurrency, 1)
        ))
        var request = HTTPClientRequest(method: options.method, url: options.url, timeout: .seconds(10))
        if options.bodyBytes > 0 {
            request.body = [UInt8](repeating: UInt8(ascii: "x"), count: options.bodyBytes)
            request.headers = [("Content-Type", "application/octet-stream")]
        }

        if options.warmup > 0 {
            _ = await measure(client: client, request: request, concurrency: options.concurrency, seconds: options.warmup)
        }
        let cpuBefore = cpuSeconds()
        let result = await measure(client: client, request: request, concurrency: options.concurrency, seconds: options.duration)
        let cpu = cpuSeconds() - cpuBefore
        let connections = client.connectionsOpened
        await client.shutdown()

        let latencies = result.latencies.sorted()
        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            let index = min(latencies.count - 1, Int((p * Double(latencies.count)).rounded(.up)) - 1)
            return Double(latencies[max(0, index)]) / 1_000_000
        }
        let rps = Double(latencies.count) / result.seconds
        print(
            "{\"client\":\"payql-httpclient\",\"method\":\"\(options.method)\",\"concurrency\":\(options.concurrency),"
                + "\"requests\":\(latencies.count),\"errors\":\(result.errors),\"seconds\":\(format(result.seconds)),"
                + "\"rps\":\(format(rps)),\"p50_ms\":\(format(percentile(0.50))),\"p99_ms\":\(format(percentile(0.99))),"
                + "\"max_ms\":\(format(percentile(1.0))),\"cpu_us_per_request\":\(format(latencies.isEmpty ? 0 : cpu * 1e6 / Double(latencies.count))),"
                + "\"connections\":\(connections)}"
        )
    }

    private struct Measurement: Sendable {
        var latencies: [Int64] = []
        var errors = 0
        var seconds = 0.0
    }

    /// Runs `concurrency` tasks for `seconds`; latencies in nanoseconds of successful 2xx requests.
    private static func measure(client: HTTPClient, request: HTTPClientRequest, concurrency: Int, seconds: Double) async -> Measurement {
        let clock = ContinuousClock()
        let start = clock.now
        let end = start + .nanoseconds(Int64(seconds * 1e9))
        var total = Measurement()
        await withTaskGroup(of: Measurement.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var local = Measurement()
                    local.latencies.reserveCapacity(100_000)
                    while clock.now < end {
                        let sent = clock.now
                        do {
                            let response = try await client.execute(request)
                            if (200..<300).contains(response.status) {
                                let elapsed = sent.duration(to: clock.now)
                                local.latencies.append(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
                            } else {
                                local.errors += 1
                            }
                        } catch {
                            local.errors += 1
                        }
                    }
                    return local
                }
            }
            for await part in group {
                total.latencies += part.latencies
                total.errors += part.errors
            }
        }
        let elapsed = start.duration(to: clock.now)
        total.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return total
    }

    /// User + system CPU time of this process so far, in seconds: a figure that, unlike
    /// req/s, does not depend on how busy the shared machine is.
    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    private static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { throw BenchUsage("\(flag) needs a value") }
            switch flag {
            case "--url": options.url = value
            case "--concurrency": options.concurrency = try number(Int(value), flag)
            case "--duration": options.duration = try number(Double(value), flag)
            case "--warmup": options.warmup = try number(Double(value), flag)
            case "--method": options.method = value
            case "--body-bytes": options.bodyBytes = try number(Int(value), flag)
            default: throw BenchUsage("unknown option \(flag)")
            }
        }
        guard options.concurrency >= 1, options.duration > 0, options.warmup >= 0, options.bodyBytes >= 0 else {
            throw BenchUsage("concurrency ≥ 1, duration > 0, warmup ≥ 0, body-bytes ≥ 0")
        }
        return options
    }

    private static func number<T>(_ value: T?, _ flag: String) throws -> T {
        guard let value else { throw BenchUsage("\(flag) needs a number") }
        return value
    }

    private static func format(_ value: Double) -> String {
        let scaled = (value * 1000).rounded() / 1000
        return "\(scaled)"
    }
}

/// Bad `payql-bench httpclient` arguments.
struct BenchUsage: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = "payql-bench httpclient: \(message)" }
}
