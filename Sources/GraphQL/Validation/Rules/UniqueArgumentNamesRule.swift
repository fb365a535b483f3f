/// Argument Uniqueness (spec §5.4.2,
/// https://spec.graphql.org/October2021/#sec-Argument-Uniqueness): a field or
/// directive receives each argument once. graphql-js: `UniqueArgumentNamesRule`
/// (one error per repeated name, at every occurrence).
extension DocumentValidator {
    func checkUniqueArguments(_ arguments: [Argument]) throws(ValidationAborted) {
        guard arguments.count > 1 else { return }
        var order: [String] = []
        var groups: [String: [Int]] = [:]
        for argument in arguments {
            let name = argument.name.value
            if groups[name] == nil { order.append(name) }
            groups[name, default: []].append(argument.name.loc.start)
        }
        guard order.count != arguments.count else { return }
        for name in order {
            guard let offsets = groups[name], offsets.count > 1 else { continue }
            try report("There can be only one argument named \"\(name)\".", offsets)
        }
    }
}
