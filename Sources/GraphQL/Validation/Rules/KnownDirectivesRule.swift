/// Directives Are Defined (spec §5.7.1,
/// https://spec.graphql.org/October2021/#sec-Directives-Are-Defined) and
/// Directives Are In Valid Locations (spec §5.7.2,
/// https://spec.graphql.org/October2021/#sec-Directives-Are-In-Valid-Locations).
/// graphql-js: `KnownDirectivesRule` (directives defined in the document count).
extension DocumentValidator {
    func checkKnownDirective(_ directive: Directive, location: DirectiveLocation) throws(ValidationAborted) {
        let name = directive.name.value
        let locations: [String]
        if let definition = documentDirectives[name] {
            locations = definition.locations.map(\.value)
        } else if let definition = schema.directive(named: name) {
            if definition.locations.contains(location) { return }
            locations = []
        } else {
            try report("Unknown directive \"@\(name)\".", [directive.loc.start])
            return
        }
        if !locations.contains(location.rawValue) {
            try report("Directive \"@\(name)\" may not be used on \(location.rawValue).", [directive.loc.start])
        }
    }
}
