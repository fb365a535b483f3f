import GraphQL
import Testing

/// Every rule's accepted and rejected documents give exactly graphql-js's errors
/// (messages, locations, order), as recorded in `Fixtures/validation/*.json`.
@Suite struct ValidationRuleTests {
    @Test func schemasBuild() {
        #expect(ValidationFixtures.schemas["default"] != nil)
        #expect(ValidationFixtures.schemas["query-only"] != nil)
    }

    @Test(arguments: ValidationFixtures.cases)
    func matchesGraphQLJS(_ testCase: ValidationCase) throws {
        let actual = try ValidationFixtures.actualErrors(testCase)
        #expect(actual == testCase.errors, "\(testCase)")
        if testCase.expect == "accepted" {
            #expect(actual.isEmpty)
        } else {
            #expect(!actual.isEmpty)
        }
    }

    /// The floor of the issue: at least one accepted and one rejected document per rule.
    @Test func everyRuleHasAcceptedAndRejectedDocuments() throws {
        let byRule = Dictionary(grouping: ValidationFixtures.cases, by: \.rule)
        for rule in specifiedValidationRuleNames {
            let cases = byRule[rule] ?? []
            #expect(cases.contains { $0.expect == "accepted" }, "\(rule) has no accepted document")
            #expect(cases.contains { $0.expect == "rejected" }, "\(rule) has no rejected document")
        }
    }
}
