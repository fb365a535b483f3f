import Support
import Testing

@Suite struct URLEncodedFormTests {
    @Test func lenientDecodingKeepsWhatItCannotRead() {
        let items = URLEncodedForm.decode(Array("a=1&b=x+y%20z&c=%E2%82%AC&&d&e=%zz&=v&f=%4".utf8))
        #expect(items.map(\.name) == ["a", "b", "c", "d", "e", "", "f"])
        #expect(items.map(\.value) == ["1", "x y z", "€", "", "%zz", "v", "%4"])
        #expect(URLEncodedForm.decode([]).isEmpty)
        #expect(URLEncodedForm.percentDecode(Array("a+b%2Fc".utf8), plusAsSpace: false) == "a+b/c")
        #expect(URLEncodedForm.percentDecode(Array("%41%".utf8), plusAsSpace: false) == "A%")
    }

    @Test func strictDecodingRefusesMalformedEscapesAndBadUTF8() {
        let items = URLEncodedForm.decodeStrictly(Array("a=1&b=x+y%20z&&c=%E2%82%AC&d".utf8))
        #expect(items?.map(\.name) == ["a", "b", "c", "d"])
        #expect(items?.map(\.value) == ["1", "x y z", "€", ""])
        #expect(URLEncodedForm.decodeStrictly(Array("a=%zz".utf8)) == nil)
        #expect(URLEncodedForm.decodeStrictly(Array("a=%4".utf8)) == nil)
        #expect(URLEncodedForm.decodeStrictly(Array("a=%FF".utf8)) == nil)
        #expect(URLEncodedForm.decodeStrictly(Array("a=%41".utf8))?.first?.value == "A")
    }

    @Test func encodingRoundTrips() {
        let pairs = [("buyer", "jon+snow@example.com"), ("purpose", "FIFA 16"), ("empty", ""), ("u", "é|&=~*")]
        let encoded = URLEncodedForm.encode(pairs)
        #expect(String(decoding: encoded, as: UTF8.self)
            == "buyer=jon%2Bsnow%40example.com&purpose=FIFA+16&empty=&u=%C3%A9%7C%26%3D%7E*")
        let decoded = URLEncodedForm.decodeStrictly(encoded)
        #expect(decoded?.map(\.name) == pairs.map(\.0))
        #expect(decoded?.map(\.value) == pairs.map(\.1))
    }

    @Test func percentEncodingKeepsOnlyUnreservedCharacters() {
        #expect(URLEncodedForm.percentEncode("../a b?c#d~e*") == "..%2Fa%20b%3Fc%23d~e%2A")
    }
}

@Suite struct CivilCalendarTests {
    @Test func knownDays() {
        #expect(CivilCalendar.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilCalendar.days(year: 2000, month: 3, day: 1) == 11_017)
        #expect(CivilCalendar.days(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilCalendar.days(year: 0, month: 1, day: 1) == -719_528)
        #expect(CivilCalendar.date(days: 11_016) == (2000, 2, 29))
    }

    @Test func roundTripsAcrossFourCenturies() {
        var day: Int64 = -800_000
        while day < 3_000_000 {
            let date = CivilCalendar.date(days: day)
            #expect(CivilCalendar.days(year: date.year, month: date.month, day: date.day) == day)
            day += 997
        }
    }

    @Test func secondsBeforeTheEpochFloor() {
        #expect(CivilCalendar.dayAndSecond(unixSeconds: -1) == (-1, 86_399))
        #expect(CivilCalendar.dayAndSecond(unixSeconds: 86_400) == (1, 0))
    }
}

@Suite struct HexTests {
    @Test func digits() {
        #expect((0...255).compactMap { Hex.digitValue(UInt8($0)) }.count == 22)
        #expect(Hex.digitValue(UInt8(ascii: "f")) == 15 && Hex.digitValue(UInt8(ascii: "F")) == 15)
        #expect(Hex.digitValue(UInt8(ascii: "g")) == nil)
    }
}

@Suite struct TrimmingTests {
    @Test func spacesAndTabsOnlyFromBothEnds() {
        #expect(" \t a b \t".trimmingSpaces() == "a b")
        #expect("\n a \n".trimmingSpaces() == "\n a \n")
        #expect("  ".trimmingSpaces() == "")
        #expect("".trimmingSpaces() == "")
        #expect("x".trimmingSpaces() == "x")
        #expect(" é ".trimmingSpaces() == "é")
        let slice = "[ v ]".dropFirst().dropLast()
        #expect(slice.trimmedOfSpaces() == "v")
    }
}
