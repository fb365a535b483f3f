public import JSON

/// A response whose `data` was written as JSON while executing, without a result
/// tree: what a server sends, at the cost of one pass over the resolvers' data.
///
/// ``body(errorJSON:)`` gives the exact bytes `JSONWriter.write(response.json)`
/// gives for the ``ExecutionResult`` of the same execution: `errors` first when
/// there are any (as graphql-js serialises it), then `data`.
public struct EncodedResponse: Sendable {
    /// Errors in the order they were found. When ``hasData`` is false these are
    /// request errors (execution did not start); otherwise field errors.
    public let errors: [GraphQLError]
    /// `{"data":<data>}`, or `nil` when execution did not start.
    private let dataBody: [UInt8]?

    /// A response with data (`body` is `{"data":<data>}`).
    init(body: [UInt8], errors: [GraphQLError]) {
        self.dataBody = body
        self.errors = errors
    }

    /// A response without data (request errors).
    init(errors: [GraphQLError]) {
        self.dataBody = nil
        self.errors = errors
    }

    /// Whether the response has a `data` entry (false: request errors only).
    public var hasData: Bool { dataBody != nil }

    /// The JSON of the `data` entry (`null` when a non-null root field failed), or
    /// `nil` when execution did not start.
    public var data: ArraySlice<UInt8>? {
        guard let dataBody else { return nil }
        return dataBody[ByteOutput.dataPrefixCount..<(dataBody.count - 1)]
    }

    /// The whole response as JSON: `{"errors":[...],"data":...}`, each error
    /// written as `errorJSON` makes it (by default ``GraphQLError/jsonValue``, so a
    /// host can add `extensions` or drop details). Without errors the bytes made
    /// during execution are handed back without a copy.
    public func body(errorJSON: (GraphQLError) -> JSONValue = { $0.jsonValue }) -> [UInt8] {
        if errors.isEmpty { return dataBody ?? Array("{}".utf8) }
        var output: [UInt8] = []
        output.reserveCapacity((dataBody?.count ?? 0) + 128 * errors.count + 16)
        output.append(contentsOf: "{\"errors\":".utf8)
        JSONWriter.write(.array(errors.map(errorJSON)), into: &output)
        if let dataBody {
            // `,"data":...}`: the data body without its opening brace.
            output.append(UInt8(ascii: ","))
            output.append(contentsOf: dataBody[1...])
        } else {
            output.append(UInt8(ascii: "}"))
        }
        return output
    }

    /// The response as an ``ExecutionResult`` (its `data` parsed back from the
    /// bytes): for tests and callers that want values rather than bytes.
    public var result: ExecutionResult {
        guard let data else { return ExecutionResult(data: nil, errors: errors) }
        // The bytes are the executor's own JSON: only the depth limit could refuse them.
        let limits = JSONLimits(maxDepth: Int.max, maxBytes: Int.max)
        let value = (try? JSONParser.parse(data, limits: limits)) ?? .null
        return ExecutionResult(data: value, errors: errors)
    }
}
