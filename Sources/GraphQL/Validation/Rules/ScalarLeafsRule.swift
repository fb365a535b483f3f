/// Leaf Field Selections (spec §5.3.3,
/// https://spec.graphql.org/October2021/#sec-Leaf-Field-Selections): scalar and
/// enum fields have no selection set; all others must have one.
/// graphql-js: `ScalarLeafsRule`.
extension DocumentValidator {
    func checkScalarLeaf(_ field: Field, type: GraphQLTypeReference?, namedType: ValidationType?) throws(ValidationAborted) {
        guard let type else { return }
        if namedType?.isLeaf ?? false {
            if let selectionSet = field.selectionSet {
                try report(
                    "Field \"\(field.name.value)\" must not have a selection since type \"\(type)\" has no subfields.",
                    [selectionSet.loc.start]
                )
            }
        } else if field.selectionSet == nil {
            let name = field.name.value
            try report(
                "Field \"\(name)\" of type \"\(type)\" must have a selection of subfields. Did you mean \"\(name) { ... }\"?",
                [field.loc.start]
            )
        }
    }
}
