@testable import GraphQLHTTP
import Testing

/// An operation's metric labels and log fields are made once, when it is first
/// selected, and shared by every request that runs it.
@Suite struct OperationLabelsTests {
    @Test func eachOutcomesLabelsAreMadeOnceAndShared() {
        let labels = OperationLabels(label: "Order")
        for outcome in OperationLabels.outcomes {
            let first = labels.values(outcome: outcome)
            let second = labels.values(outcome: outcome)
            #expect(first == ["Order", outcome])
            let same = first.withUnsafeBufferPointer { a in second.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
            #expect(same, "the label array for \(outcome) should be the prebuilt one, not a new array")
        }
        #expect(labels.values(outcome: "other") == ["Order", "other"])
        #expect(labels.logFields.count == 1)
        #expect(labels.logFields.first?.name == "operation" && labels.logFields.first?.value == "Order")
    }
}
