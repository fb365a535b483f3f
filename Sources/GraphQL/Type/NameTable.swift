/// Positions of names in a list, open-addressed: a name's length and its first,
/// middle and last bytes pick the slot, which costs less than `Hasher` on every
/// look-up; the name itself settles it. Built once (per schema by the planning and
/// validation catalogs, per document for fragments) and read per field.
struct NameTable: Sendable {
    private let names: [String]
    private let slots: [Int32]
    private let mask: Int

    /// `names` by position. A repeated name finds its first position, or its last
    /// when `lastWins` (graphql-js's fragment look-up).
    init(_ names: [String], lastWins: Bool = false) {
        var size = 4
        while size < 2 * names.count { size *= 2 }
        var slots = [Int32](repeating: -1, count: size)
        let mask = size - 1
        outer: for (position, name) in names.enumerated() {
            var slot = Self.slot(name) & mask
            while slots[slot] >= 0 {
                if names[Int(slots[slot])] == name {
                    if lastWins { slots[slot] = Int32(position) }
                    continue outer
                }
                slot = (slot + 1) & mask
            }
            slots[slot] = Int32(position)
        }
        self.names = names
        self.slots = slots
        self.mask = mask
    }

    /// The position of `name`, if present.
    @inline(__always)
    func position(of name: String) -> Int? {
        var slot = Self.slot(name) & mask
        while true {
            let position = Int(slots[slot])
            guard position >= 0 else { return nil }
            if names[position] == name { return position }
            slot = (slot + 1) & mask
        }
    }

    @inline(__always)
    private static func slot(_ name: String) -> Int {
        // Names are native UTF-8 (contiguous): read in place, no index arithmetic.
        let contiguous = name.utf8.withContiguousStorageIfAvailable { bytes -> Int in
            guard let first = bytes.first, let last = bytes.last else { return 0 }
            return mix(bytes.count, first, last, bytes[bytes.count / 2])
        }
        if let contiguous { return contiguous }
        let utf8 = name.utf8
        guard let first = utf8.first, let last = utf8.last else { return 0 }
        return mix(utf8.count, first, last, utf8[utf8.index(utf8.startIndex, offsetBy: utf8.count / 2)])
    }

    @inline(__always)
    private static func mix(_ count: Int, _ first: UInt8, _ last: UInt8, _ middle: UInt8) -> Int {
        var hash = count &* 0x9E37_79B1
        hash ^= Int(first) &* 0x85EB_CA77
        hash ^= Int(last) &* 0xC2B2_AE3D
        hash ^= Int(middle) &* 0x27D4_EB2F
        return hash ^ (hash >> 15)
    }
}
