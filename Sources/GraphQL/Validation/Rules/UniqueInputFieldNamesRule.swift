/// Input Object Field Uniqueness (spec §5.6.3,
/// https://spec.graphql.org/October2021/#sec-Input-Object-Field-Uniqueness): an
/// object value names each field once. graphql-js: `UniqueInputFieldNamesRule`.
extension DocumentValidator {
    /// Called for the field at `index` of `object`; `seen` holds the first
    /// offset of each name met so far in this object.
    func checkUniqueInputField(
        _ field: ObjectField,
        index: Int,
        in object: ObjectValue,
        seen: inout [String: Int]
    ) throws(ValidationAborted) {
        guard object.fields.count > 1 else { return }
        let name = field.name.value
        if let first = seen[name] {
            try report("There can be only one input field named \"\(name)\".", [first, field.name.loc.start])
        } else {
            seen[name] = field.name.loc.start
        }
    }
}
