import JSON
import Testing

/// `ByteSink`, which the GraphQL executor writes responses into: short copies
/// (two overlapping words) and long ones, growth, truncation and copies out.
@Suite struct ByteSinkTests {
    @Test func appendsEveryLengthExactly() {
        var sink = ByteSink(capacity: 0)
        var expected: [UInt8] = []
        for length in 0...40 {
            let chunk = (0..<length).map { UInt8(truncatingIfNeeded: length * 31 + $0 * 7 + 1) }
            chunk.withUnsafeBufferPointer { sink.append($0) }
            expected += chunk
            sink.append(UInt8(ascii: ","))
            expected.append(UInt8(ascii: ","))
        }
        #expect(sink.array() == expected)
        #expect(sink.count == expected.count)
        #expect(sink.array(from: 10) == Array(expected[10...]))
    }

    @Test func truncatesBackAndWritesOn() {
        var sink = ByteSink()
        sink.append("{\"a\":")
        let mark = sink.count
        sink.append("[1,2,3]")
        sink.truncate(to: mark)
        sink.append("null}")
        #expect(String(decoding: sink.array(), as: UTF8.self) == "{\"a\":null}")
        sink.truncate(to: 1_000)
        #expect(sink.count == 10)
    }
}
