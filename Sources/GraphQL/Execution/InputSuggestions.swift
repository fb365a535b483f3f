/// "Did you mean" hints worded as graphql-js words them (`suggestionList` + `didYouMean`).
enum InputSuggestions {
    /// Options close to `input` by edit distance, best first.
    static func list(_ input: String, options: [String]) -> [String] {
        let threshold = Int(Double(input.count) * 0.4) + 1
        let lowered = Array(input.lowercased().unicodeScalars)
        var scored: [(String, Int)] = []
        for option in options {
            let distance: Int
            if option == input {
                distance = 0
            } else if option.lowercased() == input.lowercased() {
                distance = 1
            } else {
                distance = editDistance(lowered, Array(option.lowercased().unicodeScalars))
            }
            if distance <= threshold { scored.append((option, distance)) }
        }
        scored.sort { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        return scored.map(\.0)
    }

    /// ` Did you mean "A", "B", or "C"?` (at most five), or an empty string.
    static func didYouMean(_ suggestions: [String]) -> String {
        guard !suggestions.isEmpty else { return "" }
        let quoted = suggestions.prefix(5).map { "\"" + $0 + "\"" }
        var message = " Did you mean "
        switch quoted.count {
        case 1: message += quoted[0]
        case 2: message += quoted[0] + " or " + quoted[1]
        default: message += quoted.dropLast().joined(separator: ", ") + ", or " + (quoted.last ?? "")
        }
        return message + "?"
    }

    /// Damerau-Levenshtein (optimal string alignment) distance.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a == b { return 0 }
        let rows = a.count + 1, columns = b.count + 1
        var table = [Int](repeating: 0, count: rows * columns)
        for i in 0..<rows { table[i * columns] = i }
        for j in 0..<columns { table[j] = j }
        if rows > 1, columns > 1 {
            for i in 1..<rows {
                for j in 1..<columns {
                    let cost = a[i - 1] == b[j - 1] ? 0 : 1
                    var best = min(table[(i - 1) * columns + j] + 1, table[i * columns + j - 1] + 1, table[(i - 1) * columns + j - 1] + cost)
                    if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                        best = min(best, table[(i - 2) * columns + j - 2] + 1)
                    }
                    table[i * columns + j] = best
                }
            }
        }
        return table[rows * columns - 1]
    }
}
