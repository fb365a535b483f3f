/// Fragment Spread Is Possible (spec §5.5.2.3,
/// https://spec.graphql.org/October2021/#sec-Fragment-spread-is-possible): a
/// fragment applies only where its type and the parent type can share an
/// object type. graphql-js: `PossibleFragmentSpreadsRule`.
extension DocumentValidator {
    func checkPossibleInlineFragment(
        _ inline: InlineFragment,
        type: ValidationType?,
        parentType: ValidationType?
    ) throws(ValidationAborted) {
        guard let type, type.isComposite, let parentType, parentType.isComposite,
              type !== parentType, !schema.doTypesOverlap(type.name, parentType.name) else { return }
        try report(
            "Fragment cannot be spread here as objects of type \"\(parentType.name)\" can never be of type \"\(type.name)\".",
            [inline.loc.start]
        )
    }

    func checkPossibleFragmentSpread(_ spread: FragmentSpread, parentType: ValidationType?) throws(ValidationAborted) {
        guard let parentType, let index = fragmentIndexByName[spread.name.value],
              let typeName = fragmentAt[index]?.typeCondition.name.value,
              let type = catalog.type(named: typeName), type.isComposite,
              type !== parentType, !schema.doTypesOverlap(type.name, parentType.name) else { return }
        try report(
            "Fragment \"\(spread.name.value)\" cannot be spread here as objects of type \"\(parentType.name)\" can never be of type \"\(type.name)\".",
            [spread.loc.start]
        )
    }
}
