/// Fragments On Composite Types (spec §5.5.1.3,
/// https://spec.graphql.org/October2021/#sec-Fragments-On-Composite-Types): a
/// type condition names an object, interface or union.
/// graphql-js: `FragmentsOnCompositeTypesRule` (unknown types are KnownTypeNames').
extension DocumentValidator {
    func checkInlineFragmentIsComposite(_ inline: InlineFragment, type: ValidationType?) throws(ValidationAborted) {
        guard let condition = inline.typeCondition, let type, !type.isComposite else { return }
        try report("Fragment cannot condition on non composite type \"\(condition.name.value)\".", [condition.loc.start])
    }

    func checkFragmentDefinitionIsComposite(_ fragment: FragmentDefinition, type: ValidationType?) throws(ValidationAborted) {
        guard let type, !type.isComposite else { return }
        try report(
            "Fragment \"\(fragment.name.value)\" cannot condition on non composite type \"\(fragment.typeCondition.name.value)\".",
            [fragment.typeCondition.loc.start]
        )
    }
}
