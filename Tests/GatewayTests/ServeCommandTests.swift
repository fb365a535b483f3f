import ChildProcess
import Foundation
import HTTPTestSupport
import HTTPClient
import JSON
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `payql serve` binary against the real `payql sandbox` (as a merchant would run it with
/// provider credentials): dev keys, an order paid through the provider's webhooks, and no secret
/// in any line either process wrote.
@Suite(.serialized) struct ServeCommandTests {
    static var payql: String? { PayQLBinary.path }

    /// A port nothing listens on right now (bound, read, released).
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static let secrets = [
        "PAYQL_RAZORPAY_KEY_SECRET": "sandbox_razorpay_key_secret",
        "PAYQL_RAZORPAY_WEBHOOK_SECRET": "sandbox_razorpay_webhook_secret",
        "PAYQL_CASHFREE_CLIENT_SECRET": "cfsk_test_sandbox_secret",
    ]

    @Test func serveWithProviderCredentialsPaysAnOrderAndLogsNoSecret() async throws {
        let binary = try #require(Self.payql, "payql is not built next to the tests (run swift build --build-tests)")
        let directory = NSTemporaryDirectory() + "payql-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sandboxPort = try Self.freePort()
        let payqlPort = try Self.freePort()
        let environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C"]
        let sandbox = try ChildProcess(
            executable: binary, arguments: ["sandbox", "--port", "\(sandboxPort)", "--webhook-url", "http://127.0.0.1:\(payqlPort)/webhooks"],
            environment: environment, standardOutput: .file(directory + "/sandbox.log"), standardError: .standardOutput)
        defer { sandbox.terminate(); _ = sandbox.waitForExit() }
        let serve = try ChildProcess(
            executable: binary,
            arguments: ["serve", "--port", "\(payqlPort)", "--data-dir", directory + "/pg", "--sandbox", "false", "--dev-keys", "true",
                        "--dev-keys-dir", directory, "--log-level", "debug",
                        "--razorpay-key-id", "rzp_test_sandbox00001", "--razorpay-base-url", "http://127.0.0.1:\(sandboxPort)/razorpay",
                        "--cashfree-client-id", "cf_test_sandbox_app_id", "--cashfree-base-url", "http://127.0.0.1:\(sandboxPort)/cashfree/pg"],
            environment: environment.merging(Self.secrets) { first, _ in first },
            standardOutput: .file(directory + "/serve.log"), standardError: .standardOutput)
        var serveExited = false
        defer { if !serveExited { serve.terminate(signal: SIGKILL); _ = serve.waitForExit() } }

        let client = try HTTPClient()
        defer { Task { await client.shutdown() } }
        let base = "http://127.0.0.1:\(payqlPort)"
        let keysFile = directory + "/dev-keys"
        let deadline = ContinuousClock.now + .seconds(90)
        while (try? String(contentsOfFile: keysFile, encoding: .utf8))?.contains("PAYQL_OPS_KEY=") != true, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let keysText = try String(contentsOfFile: keysFile, encoding: .utf8)
        var info = stat()
        #expect(stat(keysFile, &info) == 0 && info.st_mode & 0o777 == 0o600, "dev keys must be readable by their owner only")
        let secretKey = try #require(keysText.split(separator: "\n").first { $0.hasPrefix("PAYQL_SECRET_KEY=") }?.split(separator: "=").last.map(String.init))

        func call(_ query: String, _ variables: JSONObject = [:], key: String) async throws -> JSONValue {
            let body = JSONWriter.write(["query": .string(query), "variables": .object(variables)])
            let response = try await client.execute(HTTPClientRequest(method: "POST", url: base + "/graphql",
                                                                      headers: [("content-type", "application/json"), ("authorization", "Bearer \(key)")],
                                                                      body: body))
            return try JSONParser.parse(response.body)
        }
        let customer = try await call(#"mutation { createCustomer(input: {name: "Ravi", phone: "9123456780"}) { customer { id } } }"#, key: secretKey)
        let customerID = try #require(customer["data"]?["createCustomer"]?["customer"]?["id"])
        let session = try await call("mutation($c: ID!) { createClientSession(input: {customerId: $c}) { session { token } } }", ["c": customerID], key: secretKey)
        let token = try #require(session["data"]?["createClientSession"]?["session"]?["token"]?.stringValue)
        let created = try await call(#"mutation { createOrder(input: {amount: {amount: "25000"}, provider: RAZORPAY}) { order { id providerOrderId } userErrors { code } } }"#,
                                     key: token)
        let order = try #require(created["data"]?["createOrder"]?["order"])
        let providerOrderID = try #require(order["providerOrderId"]?.stringValue)
        _ = try await client.execute(HTTPClientRequest(method: "POST", url: "http://127.0.0.1:\(sandboxPort)/_sandbox/razorpay/orders/\(providerOrderID)/complete",
                                                       body: Array(#"{"status":"paid"}"#.utf8)))
        var status = ""
        for _ in 0..<100 where status != "PAID" {
            let read = try await call("query($id: ID!) { order(id: $id) { status } }", ["id": try #require(order["id"])], key: token)
            status = read["data"]?["order"]?["status"]?.stringValue ?? ""
            if status != "PAID" { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(status == "PAID")
        _ = try await call("{ viewer { scopes } }", key: "pq_sk_wrong")   // a refused key is logged as a 401, without the key
        // A TPV account sealed with the generated development data key (no PAYQL_DATA_KEY here).
        let tpvNumber = "916010082985661"
        let tpv = try await call("""
            mutation($c: ID!, $n: String!) { addTpvBankAccount(input: {customerId: $c, accountNumber: $n, ifsc: "HDFC0000053",
              beneficiaryName: "Ravi"}) { bankAccount { maskedAccountNumber } userErrors { code } } }
            """, ["c": customerID, "n": .string(tpvNumber)], key: secretKey)
        #expect(tpv["data"]?["addTpvBankAccount"]?["bankAccount"]?["maskedAccountNumber"]?.stringValue == "XXXXXX5661", "\(tpv)")
        #expect(stat(directory + "/data-key", &info) == 0 && info.st_mode & 0o777 == 0o600, "the data key must be readable by its owner only")
        let dataKey = try String(contentsOfFile: directory + "/data-key", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("PAYQL_DATA_KEY=") }.map { String($0.dropFirst("PAYQL_DATA_KEY=".count)) }

        serve.terminate()
        #expect(serve.waitForExit() == 0)
        serveExited = true
        let logs = try String(contentsOfFile: directory + "/serve.log", encoding: .utf8)
            + (try String(contentsOfFile: directory + "/sandbox.log", encoding: .utf8))
        #expect(logs.contains("\"status\":200"), "the request log was written")
        #expect(logs.components(separatedBy: "generated development key file").count == 2, "the generated data key is announced once")
        let keys = keysText.split(separator: "\n").filter { $0.hasPrefix("PAYQL_") }.compactMap { $0.split(separator: "=").last.map(String.init) }
        for secret in Array(Self.secrets.values) + keys + [token, "pq_sk_wrong", tpvNumber, try #require(dataKey)] {
            #expect(!logs.contains(secret), "a secret appeared in the logs")
        }
    }
}
