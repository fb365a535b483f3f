import ChildProcess
import Foundation
import HTTPTestSupport

/// A TLS server that offers HTTP/2 (and HTTP/1.1) on 127.0.0.1, run by Node's `http2`
/// module with a throw-away self-signed certificate made by the `openssl` command.
/// The certificate names only `IP:127.0.0.1`, so `https://localhost` must fail verification.
final class NodeHTTP2Server: Sendable {
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/node")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

    let port: Int
    /// The PEM certificate to trust (`HTTPClientConfiguration.caBundlePath`).
    let certificatePath: String
    private let directory: URL
    private let process: ChildProcess

    private static let script = """
        const http2 = require('http2');
        const fs = require('fs');
        const [key, cert] = [fs.readFileSync(process.argv[2]), fs.readFileSync(process.argv[3])];
        const server = http2.createSecureServer({ key, cert, allowHTTP1: true }, (req, res) => {
          const chunks = [];
          req.on('data', (c) => chunks.push(c));
          req.on('end', () => {
            res.setHeader('x-http-version', req.httpVersion);
            res.setHeader('x-method', req.method);
            res.end(Buffer.concat(chunks).length > 0 ? Buffer.concat(chunks) : 'hello over ' + req.httpVersion);
          });
        });
        server.listen(0, '127.0.0.1', () => console.log(server.address().port));
        process.stdin.on('end', () => process.exit(0));
        process.stdin.resume();
        """

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("payql-h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        certificatePath = directory.appendingPathComponent("cert.pem").path
        let openssl = try ChildProcess.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificatePath, "-days", "1", "-subj", "/CN=payql-test",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ], mergeErrors: true)
        guard openssl.status == 0 else { throw POSIXFailure("openssl req: \(openssl.outputText)") }

        let scriptPath = directory.appendingPathComponent("server.js").path
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        // Standard input stays open: closing it (stop, or our exit) ends the server.
        process = try ChildProcess(
            executable: "/usr/bin/node", arguments: [scriptPath, key, certificatePath],
            standardInput: .pipe, standardOutput: .pipe)
        let line = process.output.flatMap(ChildProcess.readLine(from:))
        guard let line else {
            process.terminate()
            _ = process.waitForExit()
            throw POSIXFailure("node server did not start")
        }
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            _ = process.waitForExit()
            throw POSIXFailure("node server printed no port")
        }
        self.port = port
    }

    func stop() {
        process.terminate()
        process.closeInput()
        process.closeOutputs()
        _ = process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
