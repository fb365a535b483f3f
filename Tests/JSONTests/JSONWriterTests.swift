import JSON
import Testing

@Suite struct JSONWriterTests {
    @Test func writesCompactOrderedJSON() {
        var object = JSONObject()
        object.append("z", 1)
        object.append("a", [true, false, nil])
        object.append("m", ["x": "y"])
        #expect(JSONWriter.string(.object(object)) == #"{"z":1,"a":[true,false,null],"m":{"x":"y"}}"#)
    }

    @Test func writesIntegersExactly() {
        #expect(JSONWriter.string(.int(Int64.min)) == "-9223372036854775808")
        #expect(JSONWriter.string(.int(Int64.max)) == "9223372036854775807")
        #expect(JSONWriter.string(.int(0)) == "0")
        #expect(JSONWriter.string(.int(-7)) == "-7")
    }

    @Test func writesDoubles() {
        #expect(JSONWriter.string(.double(1.5)) == "1.5")
        #expect(JSONWriter.string(.double(0.1)) == "0.1")
        #expect(JSONWriter.string(.double(.nan)) == "null")
        #expect(JSONWriter.string(.double(.infinity)) == "null")
    }

    @Test func escapesPerRFC8259AndKeepsUTF8() {
        let text = "q\"b\\s/\n\r\t\u{8}\u{c}\u{1}\u{1f}é😀"
        let written = JSONWriter.string(.string(text))
        #expect(written == "\"q\\\"b\\\\s/\\n\\r\\t\\b\\f\\u0001\\u001fé😀\"")
    }

    @Test(arguments: [
        #"{"a":[1,-2,3.25,"x\u0001y",{"b":null}],"c":"é😀","d":9223372036854775807}"#,
        #"[[],{},"",0,-0.5,1e-05,true]"#,
    ])
    func roundTrips(_ text: String) throws {
        let value = try JSONParser.parse(text)
        let again = try JSONParser.parse(JSONWriter.write(value))
        #expect(value == again)
    }

    @Test func doublesRoundTrip() throws {
        for number in [0.1, 1e300, -2.2250738585072014e-308, 123456.789, Double.leastNonzeroMagnitude, 1e21] {
            let text = JSONWriter.string(.double(number))
            #expect(try JSONParser.parse(text).doubleValue == number, "\(text)")
        }
    }
}
