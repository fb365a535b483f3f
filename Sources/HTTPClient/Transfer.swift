internal import CCurl
internal import CPayQLShims
import Synchronization
import Support

/// One attempt of one request: owns its libcurl easy handle, its header list,
/// its error buffer and the bytes received.
///
/// Who touches what: the creating task builds everything in `init` and stores
/// the continuation, then hands the transfer to the I/O thread under
/// ``CurlEventLoop``'s mutex (which orders those writes before the loop's reads).
/// From then on only the I/O thread reads or writes the mutable fields: libcurl
/// runs the write and header callbacks inside `curl_multi_perform` on that
/// thread, and the loop completes the transfer there. `cancelRequested` is the
/// one field shared afterwards, and it is atomic. That confinement is why the
/// `@unchecked Sendable` below is safe.
///
/// The easy handle carries `Unmanaged.passUnretained(self)` as the callbacks'
/// user data. Unretained is enough: the handle is owned by this object (freed in
/// `deinit`), and while the handle sits in the multi handle (the only time the
/// callbacks can run) the loop's table of active transfers holds a strong
/// reference to this object.
final class Transfer: @unchecked Sendable {
    /// The `CURL *` this transfer owns.
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let maxResponseBytes: Int
    private let method: String
    private let url: String
    /// `METHOD scheme://host/path` (no query string: it may carry identifiers or tokens), for messages.
    /// Computed only when a message needs it: it is not free, and most transfers succeed.
    var label: String { "\(method) \(Transfer.redact(url))" }

    private var received: [UInt8] = []
    private var receivedHeaders: [(name: String, value: String)] = []
    private var exceededLimit = false

    /// Set when the calling task is cancelled; read by the I/O thread before adding the handle.
    let cancelRequested = Atomic<Bool>(false)
    /// Resumed exactly once, on the I/O thread (or by the caller if never handed over).
    var continuation: CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>?

    /// Builds the easy handle for one attempt with the given total timeout.
    init(request: HTTPClientRequest, timeout: Duration, configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        method = request.method
        url = request.url
        guard curlGlobalInitialized else {
            throw HTTPClientError(code: .transport, message: "curl_global_init failed")
        }
        guard let easy = curl_easy_init() else {
            throw HTTPClientError(code: .transport, message: "curl_easy_init failed (out of memory?)")
        }
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        maxResponseBytes = configuration.maxResponseBytes
        try configure(request: request, timeout: timeout, configuration: configuration)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    // MARK: Building the handle

    private func configure(request: HTTPClientRequest, timeout: Duration, configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        try validate(request)
        let user = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_URL, string: request.url)
        // Only http and https, also for redirects we do not follow anyway.
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        // Signals are process-wide; libcurl must not use SIGALRM for DNS timeouts in a threaded process.
        try set(CURLOPT_NOSIGNAL, long: 1)
        try set(CURLOPT_FOLLOWLOCATION, long: 0)
        // An empty proxy stops libcurl from reading http_proxy/https_proxy/no_proxy from the
        // environment on every transfer: libraries here take configuration, never the environment.
        try set(CURLOPT_PROXY, string: "")
        try set(CURLOPT_TIMEOUT_MS, long: Transfer.milliseconds(timeout))
        try set(CURLOPT_CONNECTTIMEOUT_MS, long: Transfer.milliseconds(min(request.connectTimeout, timeout)))
        try set(CURLOPT_HTTP_VERSION, long: Int(configuration.allowHTTP2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1))
        if configuration.allowHTTP2, Transfer.hasScheme(request.url, "https://") {
            // Concurrent first requests wait for the connection being made, to multiplex on it
            // if it turns out HTTP/2, instead of each opening its own.
            try set(CURLOPT_PIPEWAIT, long: 1)
        }
        try set(CURLOPT_SSL_VERIFYPEER, long: configuration.verifyTLS ? 1 : 0)
        try set(CURLOPT_SSL_VERIFYHOST, long: configuration.verifyTLS ? 2 : 0)
        if let caBundlePath = configuration.caBundlePath {
            try set(CURLOPT_CAINFO, string: caBundlePath)
        }
        if configuration.acceptCompressedResponses {
            try set(CURLOPT_ACCEPT_ENCODING, string: "")
        }
        if configuration.maxResponseBytes > 0 {
            // Refuses early when Content-Length is known (0 would mean "no limit" to libcurl;
            // the write callback enforces the limit in every case, on decoded bytes).
            try set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(configuration.maxResponseBytes))
        }
        try set(CURLOPT_MAXAGE_CONN, long: max(1, Int(configuration.maxIdleConnectionAge.components.seconds)))
        if request.freshConnection {
            try set(CURLOPT_FRESH_CONNECT, long: 1)
        }
        try set(CURLOPT_USERAGENT, string: configuration.userAgent)

        let writeCallback: cpayql_curl_data_callback = { data, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        let headerCallback: cpayql_curl_data_callback = { data, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        try set(CURLOPT_WRITEFUNCTION, callback: writeCallback)
        try set(CURLOPT_WRITEDATA, pointer: user)
        try set(CURLOPT_HEADERFUNCTION, callback: headerCallback)
        try set(CURLOPT_HEADERDATA, pointer: user)

        try configureMethodAndBody(request)
        try configureHeaders(request)
    }

    private func configureMethodAndBody(_ request: HTTPClientRequest) throws(HTTPClientError) {
        let method = request.method
        if method == "HEAD" {
            try set(CURLOPT_NOBODY, long: 1)
            if !request.body.isEmpty {
                throw HTTPClientError(code: .invalidRequest, message: "a HEAD request cannot carry a body (\(label))")
            }
            return
        }
        let sendsBody = !request.body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH"
        if sendsBody {
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(request.body.count))
            // COPYPOSTFIELDS copies the bytes, so the array need not outlive this call.
            let code = request.body.withUnsafeBytes { bytes -> CURLcode in
                var empty: UInt8 = 0
                guard let base = bytes.baseAddress else {
                    return cpayql_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, &empty)
                }
                return cpayql_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
            }
            try check(code, "CURLOPT_COPYPOSTFIELDS")
        } else {
            try set(CURLOPT_HTTPGET, long: 1)
        }
        if method != (sendsBody ? "POST" : "GET") {
            try set(CURLOPT_CUSTOMREQUEST, string: method)
        }
    }

    private func configureHeaders(_ request: HTTPClientRequest) throws(HTTPClientError) {
        var lines: [String] = []
        var hasContentType = false
        for (name, value) in request.headers {
            if ASCII.caseInsensitiveEquals(name, "Content-Type") { hasContentType = true }
            // libcurl sends "Name;" as a header with an empty value ("Name:" would remove it).
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // No "Expect: 100-continue" round trip for large bodies: provider APIs answer directly.
        lines.append("Expect:")
        // libcurl would label every POST body as a form; send no Content-Type unless asked.
        if !hasContentType { lines.append("Content-Type:") }
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw HTTPClientError(code: .transport, message: "curl_slist_append failed (out of memory?)")
            }
            headerList = appended
        }
        try check(cpayql_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
    }

    private func validate(_ request: HTTPClientRequest) throws(HTTPClientError) {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(Transfer.isTokenByte) else {
            throw HTTPClientError(code: .invalidRequest, message: "invalid method \"\(request.method)\"")
        }
        guard Transfer.hasScheme(request.url, "http://") || Transfer.hasScheme(request.url, "https://") else {
            throw HTTPClientError(code: .invalidRequest, message: "only absolute http:// and https:// URLs are supported (\(label))")
        }
        guard !request.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw HTTPClientError(code: .invalidRequest, message: "the URL contains spaces or control characters (\(label))")
        }
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Transfer.isTokenByte) else {
                throw HTTPClientError(code: .invalidRequest, message: "invalid header name \"\(name)\" (\(label))")
            }
            // CR, LF or NUL in a value would split or truncate the header (request smuggling).
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPClientError(code: .invalidRequest, message: "header \(name) has a line break or NUL in its value (\(label))")
            }
        }
    }

    /// Whether `url` starts with `prefix` (lower-case ASCII), ignoring case.
    static func hasScheme(_ url: String, _ prefix: String) -> Bool {
        var characters = url.utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = characters.next() else { return false }
            let lower = (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
            guard lower == expected else { return false }
        }
        return true
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    // MARK: Callbacks (I/O thread)

    /// Appends body bytes; returning less than given makes libcurl abort with CURLE_WRITE_ERROR.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if bytes.count > max(0, maxResponseBytes) - received.count {
            exceededLimit = true
            return 0
        }
        received.append(contentsOf: bytes)
        return bytes.count
    }

    /// Collects one header line; a status line starts a new header block
    /// (after a `100 Continue` or any other interim response only the last block counts).
    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        // Works on bytes: cheaper than Characters, and "\r\n" is one Character in Swift.
        let space: UInt8 = 0x20, tab: UInt8 = 0x09
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0D || bytes[end - 1] == 0x0A { end -= 1 }
        guard end > 0 else { return bytes.count }
        func text(_ range: Range<Int>) -> String {
            var lower = range.lowerBound, upper = range.upperBound
            while lower < upper, bytes[lower] == space || bytes[lower] == tab { lower += 1 }
            while upper > lower, bytes[upper - 1] == space || bytes[upper - 1] == tab { upper -= 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[lower..<upper]), as: UTF8.self)
        }
        if end >= 5, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"), bytes[2] == UInt8(ascii: "T"),
           bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/") {
            // A status line starts a new header block.
            receivedHeaders.removeAll(keepingCapacity: true)
        } else if bytes[0] == space || bytes[0] == tab {
            // Obsolete line folding: a continuation of the previous field's value.
            if !receivedHeaders.isEmpty {
                receivedHeaders[receivedHeaders.count - 1].value += " " + text(0..<end)
            }
        } else if let colon = bytes[..<end].firstIndex(of: UInt8(ascii: ":")) {
            receivedHeaders.append((name: text(0..<colon), value: text((colon + 1)..<end)))
        }
        return bytes.count
    }

    // MARK: Completion (I/O thread)

    /// Resumes the waiting task with `result`; later calls do nothing.
    func complete(_ result: Result<HTTPClientResponse, HTTPClientError>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(returning: result)
    }

    /// How many new connections this transfer opened (`CURLINFO_NUM_CONNECTS`).
    var newConnections: Int {
        var value = 0
        guard cpayql_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &value) == CURLE_OK else { return 0 }
        return value
    }

    /// The outcome of a finished transfer, from libcurl's result code.
    func outcome(_ code: CURLcode) -> Result<HTTPClientResponse, HTTPClientError> {
        guard code == CURLE_OK else { return .failure(error(for: code)) }
        var status = 0
        _ = cpayql_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = cpayql_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        let httpVersion: HTTPVersion = switch version {
        case CURL_HTTP_VERSION_1_0: .http1_0
        case CURL_HTTP_VERSION_2_0: .http2
        case CURL_HTTP_VERSION_3: .http3
        default: .http1_1
        }
        let response = HTTPClientResponse(status: status, headers: receivedHeaders, body: received, httpVersion: httpVersion)
        received = []
        receivedHeaders = []
        return .success(response)
    }

    /// Maps a libcurl failure to an error code and a message with libcurl's own words.
    func error(for code: CURLcode) -> HTTPClientError {
        var kind: HTTPClientError.Code
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            // No pre-transfer time means the request never got a connection to be sent on.
            var pretransfer: curl_off_t = 0
            _ = cpayql_curl_easy_getinfo_off_t(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
            kind = pretransfer == 0 ? .connectTimeout : .timeout
        case CURLE_COULDNT_CONNECT:
            kind = .connectFailed
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            kind = .dnsFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CLIENTCERT:
            kind = .tls
        case CURLE_FILESIZE_EXCEEDED:
            kind = .responseTooLarge
        case CURLE_WRITE_ERROR where exceededLimit:
            kind = .responseTooLarge
        case CURLE_URL_MALFORMAT, CURLE_BAD_FUNCTION_ARGUMENT:
            kind = .invalidRequest
        // CURLE_UNSUPPORTED_PROTOCOL stays .transport: schemes are checked before libcurl sees the
        // URL, so it can only mean a response libcurl refused (e.g. "Received HTTP/0.9").
        default:
            kind = .transport
        }
        var message = String(cString: curl_easy_strerror(code))
        let detail = String(cString: errorBuffer)
        if !detail.isEmpty { message += ": " + detail }
        if kind == .responseTooLarge { message += " (limit \(maxResponseBytes) bytes)" }
        message += " (\(label))"
        return HTTPClientError(code: kind, message: message, curlCode: Int(code.rawValue))
    }

    // MARK: Helpers

    private func set(_ option: CURLoption, long value: Int) throws(HTTPClientError) {
        try check(cpayql_curl_easy_setopt_long(easy, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, offset value: Int64) throws(HTTPClientError) {
        try check(cpayql_curl_easy_setopt_off_t(easy, option, curl_off_t(value)), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, string value: String) throws(HTTPClientError) {
        guard !value.utf8.contains(0) else {
            throw HTTPClientError(code: .invalidRequest, message: "a NUL byte in a request string (\(label))")
        }
        try check(cpayql_curl_easy_setopt_string(easy, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer) throws(HTTPClientError) {
        try check(cpayql_curl_easy_setopt_pointer(easy, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, callback: cpayql_curl_data_callback) throws(HTTPClientError) {
        try check(cpayql_curl_easy_setopt_data_callback(easy, option, callback), "option \(option.rawValue)")
    }

    /// The funnel for easy-option results: any failure becomes an error with libcurl's text.
    private func check(_ code: CURLcode, _ what: String) throws(HTTPClientError) {
        guard code != CURLE_OK else { return }
        var failure = error(for: code)
        if failure.code == .transport { failure.code = .invalidRequest }
        failure.message = "setting \(what): " + failure.message
        throw failure
    }

    /// Clamps a duration to whole milliseconds ≥ 1 (0 would mean "no timeout" to libcurl).
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let limit = Int64(Int32.max)
        let ms = seconds >= limit / 1000 ? limit : seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int(max(1, ms))
    }

    /// The URL without its query and fragment, for messages.
    static func redact(_ url: String) -> String {
        var text = Substring(url)
        var suffix = ""
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text = text[..<cut]
            suffix = "?…"
        }
        // user:password@ in the authority.
        if let schemeEnd = text.firstRange(of: "://")?.upperBound {
            let authorityEnd = text[schemeEnd...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[schemeEnd..<authorityEnd].lastIndex(of: "@") {
                text = text[..<schemeEnd] + "****" + text[at...]
            }
        }
        return String(text) + suffix
    }
}

/// libcurl's process-wide initialisation, run once (Swift globals are initialised lazily and atomically).
let curlGlobalInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
