// The values OverlappingFieldsCanBeMerged works with: field maps of selection
// sets, conflicts and their reasons, compared fragment pairs.

/// A field as OverlappingFieldsCanBeMerged sees it.
struct OverlapField {
    /// The parent type's name (nil when unknown), and whether it is an object type.
    var parentName: String?
    var parentIsObject: Bool
    var field: Field
    /// The field definition's type, when the field is defined.
    var type: GraphQLTypeReference?
}

/// The fields of one selection set by response name (first-seen order), and the
/// fragments it spreads; a class so that "the same set" can be recognised.
/// Fields are stored grouped in one array (each group a contiguous range), so
/// a map costs a few allocations whatever its number of response names.
final class OverlapFieldMap {
    /// Response names, in first-seen order.
    private(set) var names: [String] = []
    /// Each name's fields, as a range of `fields`.
    private(set) var ranges: [Range<Int>] = []
    private(set) var fields: [OverlapField] = []
    var fragmentNames: [String] = []
    /// Offset of the selection set the map describes (its identity).
    let selectionSetStart: Int
    /// Built for large maps; small maps are searched linearly (cheaper than hashing).
    private var indexByName: [String: Int]?

    static let linearLimit = 12

    /// Groups `collected` (response name, field) pairs by name, keeping their order.
    init(selectionSetStart: Int, collected: [(String, OverlapField)], fragmentNames: [String]) {
        self.selectionSetStart = selectionSetStart
        self.fragmentNames = fragmentNames
        guard !collected.isEmpty else { return }
        var groupOf: [Int] = []
        groupOf.reserveCapacity(collected.count)
        var counts: [Int] = []
        for (name, _) in collected {
            if let index = index(of: name) {
                groupOf.append(index)
                counts[index] += 1
            } else {
                groupOf.append(names.count)
                counts.append(1)
                appendName(name)
            }
        }
        var starts: [Int] = []
        starts.reserveCapacity(counts.count)
        var total = 0
        for count in counts {
            starts.append(total)
            ranges.append(total..<(total + count))
            total += count
        }
        if names.count == collected.count {
            fields = collected.map(\.1)
            return
        }
        var placed = [OverlapField?](repeating: nil, count: collected.count)
        for (position, entry) in collected.enumerated() {
            let group = groupOf[position]
            placed[starts[group]] = entry.1
            starts[group] += 1
        }
        fields = placed.compactMap { $0 }
    }

    private func appendName(_ name: String) {
        if indexByName != nil {
            indexByName?[name] = names.count
        } else if names.count >= Self.linearLimit {
            var index: [String: Int] = [:]
            index.reserveCapacity(names.count * 2)
            for (position, existing) in names.enumerated() { index[existing] = position }
            index[name] = names.count
            indexByName = index
        }
        names.append(name)
    }

    /// The group of `responseName`, if any.
    func index(of responseName: String) -> Int? {
        if let indexByName { return indexByName[responseName] }
        return names.firstIndex(of: responseName)
    }

    /// The fields of group `index`.
    func group(_ index: Int) -> ArraySlice<OverlapField> { fields[ranges[index]] }
}

/// Why two fields conflict: a reason, or the conflicts of their subfields.
indirect enum OverlapConflictReason {
    case text(String)
    case subfields([(String, OverlapConflictReason)])

    /// graphql-js `reasonMessage`.
    var message: String {
        switch self {
        case .text(let text):
            return text
        case .subfields(let reasons):
            return reasons.map { "subfields \"\($0.0)\" conflict because \($0.1.message)" }.joined(separator: " and ")
        }
    }
}

/// Two sets of fields (offsets) that cannot be merged under one response name.
struct OverlapConflict {
    var responseName: String
    var reason: OverlapConflictReason
    var fields1: [Int]
    var fields2: [Int]
}

/// Pairs of fragments (by definition index) already compared, and whether
/// under mutual exclusion (graphql-js `PairSet`). A flat table for documents of
/// up to 128 definitions, a dictionary past that.
struct OverlapFragmentPairs {
    /// 0: not compared; 1: compared, not mutually exclusive; 2: compared, mutually exclusive.
    private var table: [UInt8] = []
    private var pairs: [Int: Bool] = [:]
    private let count: Int

    init(definitionCount: Int) {
        count = definitionCount
    }

    private func key(_ a: Int, _ b: Int) -> Int {
        a < b ? a * count + b : b * count + a
    }

    func has(_ a: Int, _ b: Int, mutuallyExclusive: Bool) -> Bool {
        let stored: Bool
        if count <= 128 {
            guard !table.isEmpty else { return false }
            let mark = table[key(a, b)]
            if mark == 0 { return false }
            stored = mark == 2
        } else {
            guard let found = pairs[key(a, b)] else { return false }
            stored = found
        }
        return mutuallyExclusive ? true : stored == mutuallyExclusive
    }

    mutating func add(_ a: Int, _ b: Int, mutuallyExclusive: Bool) {
        if count <= 128 {
            if table.isEmpty { table = [UInt8](repeating: 0, count: count * count) }
            table[key(a, b)] = mutuallyExclusive ? 2 : 1
        } else {
            pairs[key(a, b)] = mutuallyExclusive
        }
    }
}

/// OverlappingFieldsCanBeMerged's state for one document.
struct OverlapState {
    /// Fields of each selection set, by the selection set's offset.
    var cache: [Int: OverlapFieldMap] = [:]
    /// Current depth of sub-selection comparisons, and whether the limit was hit (and reported).
    var depth = 0
    var depthExceeded = false
    var depthReported = false
    /// Fragments spread at the top of each fragment (by definition index), when its map was not needed.
    var topLevelFragmentNames: [[String]?]
    var comparedPairs: OverlapFragmentPairs

    init(definitionCount: Int) {
        comparedPairs = OverlapFragmentPairs(definitionCount: definitionCount)
        topLevelFragmentNames = [[String]?](repeating: nil, count: definitionCount)
    }
}
