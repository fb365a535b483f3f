/// Executable Definitions (spec §5.1.1,
/// https://spec.graphql.org/October2021/#sec-Executable-Definitions): a document
/// submitted for execution holds only operations and fragments.
/// graphql-js: `ExecutableDefinitionsRule`, reported when the document is entered.
extension DocumentValidator {
    func checkExecutableDefinitions() throws(ValidationAborted) {
        guard hasTypeSystemDefinitions else { return }
        for definition in document.definitions where !definition.isExecutable {
            let name: String
            switch definition {
            case .schema, .schemaExtension: name = "schema"
            case .type(let type): name = "\"" + type.name.value + "\""
            case .typeExtension(let type): name = "\"" + type.name.value + "\""
            case .directive(let directive): name = "\"" + directive.name.value + "\""
            case .operation, .fragment: continue
            }
            try report("The \(name) definition is not executable.", [definition.loc.start])
        }
    }
}
