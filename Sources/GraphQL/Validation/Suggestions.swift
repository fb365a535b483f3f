// "Did you mean ...?" suggestions, worded and ordered exactly as graphql-js
// words and orders them (jsutils/suggestionList, didYouMean, naturalCompare).

/// Helpers that rank and phrase suggestions for misspelt names.
enum GraphQLSuggestions {
    /// graphql-js shows at most this many suggestions.
    static let maxSuggestions = 5

    /// `options` close enough to `input` (lexical distance at most 40% of its
    /// length, plus one), closest first, ties in natural order.
    static func list(_ input: String, _ options: [String]) -> [String] {
        let distance = LexicalDistance(input)
        let threshold = input.utf16.count * 4 / 10 + 1
        var scored: [(option: String, distance: Int)] = []
        var seen = Set<String>()
        for option in options where !seen.contains(option) {
            seen.insert(option)
            if let value = distance.measure(option, threshold: threshold) {
                scored.append((option, value))
            }
        }
        insertionSort(&scored) { a, b in
            a.distance != b.distance ? a.distance - b.distance : naturalCompare(a.option, b.option)
        }
        return scored.map(\.option)
    }

    /// ` Did you mean "A", "B", or "C"?` (empty without suggestions); `subMessage`
    /// goes between "mean" and the names (`to use an inline fragment on`).
    static func didYouMean(_ suggestions: [String]) -> String {
        didYouMean(nil, suggestions)
    }

    /// As `didYouMean(_:)`, with words between "mean" and the names.
    static func didYouMean(_ subMessage: String?, _ suggestions: [String]) -> String {
        if suggestions.isEmpty { return "" }
        var message = " Did you mean "
        if let subMessage { message += subMessage + " " }
        let quoted = suggestions.prefix(maxSuggestions).map { "\"" + $0 + "\"" }
        switch quoted.count {
        case 1: return message + quoted[0] + "?"
        case 2: return message + quoted[0] + " or " + quoted[1] + "?"
        default:
            return message + quoted.dropLast().joined(separator: ", ") + ", or " + quoted[quoted.count - 1] + "?"
        }
    }

    /// graphql-js `naturalCompare`: digit runs compare by value, other UTF-16
    /// code units by code; a shorter prefix sorts first.
    static func naturalCompare(_ a: String, _ b: String) -> Int {
        let aUnits = Array(a.utf16)
        let bUnits = Array(b.utf16)
        var aIndex = 0
        var bIndex = 0
        func isDigit(_ unit: UInt16?) -> Bool { unit.map { $0 >= 48 && $0 <= 57 } ?? false }
        while aIndex < aUnits.count && bIndex < bUnits.count {
            var aChar: UInt16? = aUnits[aIndex]
            var bChar: UInt16? = bUnits[bIndex]
            if isDigit(aChar), isDigit(bChar) {
                // The same loop as graphql-js, including its handling of leading zeros.
                var aNumber = 0
                repeat {
                    aIndex += 1
                    aNumber = aNumber &* 10 &+ Int(aChar.digitOrZero) - 48
                    aChar = aIndex < aUnits.count ? aUnits[aIndex] : nil
                } while isDigit(aChar) && aNumber > 0
                var bNumber = 0
                repeat {
                    bIndex += 1
                    bNumber = bNumber &* 10 &+ Int(bChar.digitOrZero) - 48
                    bChar = bIndex < bUnits.count ? bUnits[bIndex] : nil
                } while isDigit(bChar) && bNumber > 0
                if aNumber < bNumber { return -1 }
                if aNumber > bNumber { return 1 }
            } else {
                if let aChar, let bChar {
                    if aChar < bChar { return -1 }
                    if aChar > bChar { return 1 }
                }
                aIndex += 1
                bIndex += 1
            }
        }
        return aUnits.count - bUnits.count
    }

    /// The stable binary insertion sort V8 uses for short arrays, so that
    /// comparators that are not total orders (graphql-js has one) give the same
    /// order here as in graphql-js.
    static func insertionSort<T>(_ items: inout [T], _ compare: (T, T) -> Int) {
        guard items.count > 1 else { return }
        for index in 1..<items.count {
            let pivot = items[index]
            var left = 0
            var right = index
            while left < right {
                let middle = left + (right - left) / 2
                if compare(pivot, items[middle]) < 0 {
                    right = middle
                } else {
                    left = middle + 1
                }
            }
            var position = index
            while position > left {
                items[position] = items[position - 1]
                position -= 1
            }
            items[left] = pivot
        }
    }
}

private extension Optional where Wrapped == UInt16 {
    /// The unit, or 0 (never reached: callers test `isDigit` first).
    var digitOrZero: UInt16 { self ?? 48 }
}

/// Damerau-Levenshtein distance where a change of case counts as one edit
/// (graphql-js `LexicalDistance`), computed over UTF-16 code units.
private struct LexicalDistance {
    let input: String
    let inputLowercased: String
    let inputUnits: [UInt16]

    init(_ input: String) {
        self.input = input
        self.inputLowercased = input.lowercased()
        self.inputUnits = Array(inputLowercased.utf16)
    }

    func measure(_ option: String, threshold: Int) -> Int? {
        if option == input { return 0 }
        let optionLowercased = option.lowercased()
        if optionLowercased == inputLowercased { return 1 }
        var a = Array(optionLowercased.utf16)
        var b = inputUnits
        if a.count < b.count { swap(&a, &b) }
        let aLength = a.count
        let bLength = b.count
        if aLength - bLength > threshold { return nil }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: bLength + 1), count: 3)
        for j in 0...bLength { rows[0][j] = j }
        if aLength >= 1 {
            for i in 1...aLength {
                let up = (i - 1) % 3
                let current = i % 3
                rows[current][0] = i
                var smallest = i
                if bLength >= 1 {
                    for j in 1...bLength {
                        let cost = a[i - 1] == b[j - 1] ? 0 : 1
                        var cell = min(rows[up][j] + 1, rows[current][j - 1] + 1, rows[up][j - 1] + cost)
                        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                            cell = min(cell, rows[(i - 2) % 3][j - 2] + 1)
                        }
                        if cell < smallest { smallest = cell }
                        rows[current][j] = cell
                    }
                }
                if smallest > threshold { return nil }
            }
        }
        let distance = rows[aLength % 3][bLength]
        return distance <= threshold ? distance : nil
    }
}
