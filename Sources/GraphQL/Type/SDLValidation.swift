import JSON

/// The SDL validation rules (graphql-js `specifiedSDLRules`) over a type-system
/// document: unique names everywhere, known types and directives, directives in
/// allowed locations and not repeated, arguments known / unique / provided,
/// type extensions of defined types of the same kind. Messages as graphql-js.
public func validateSDL(_ document: Document) -> [GraphQLError] {
    var validator = SDLValidator(document: document)
    validator.run()
    return validator.errors
}

struct SDLValidator {
    let document: Document
    var errors: [GraphQLError] = []
    /// Defined type names → kind of definition.
    var definedTypes: [String: TypeDefinition] = [:]
    var directiveDefinitions: [String: GraphQLDirective] = [:]

    init(document: Document) { self.document = document }

    mutating func report(_ message: String, _ locations: [Location]) {
        errors.append(GraphQLError(message, at: locations, in: document.source))
    }

    mutating func run() {
        for directive in GraphQLDirective.specified { directiveDefinitions[directive.name] = directive }
        var schemaDefinitions = 0
        var operationTypes: [OperationType: Location] = [:]
        var typeNameLocations: [String: Location] = [:]
        var directiveNameLocations: [String: Location] = [:]
        for definition in document.definitions {
            switch definition {
            case .schema(let schema):
                schemaDefinitions += 1
                if schemaDefinitions > 1 { report("Must provide only one schema definition.", [schema.loc]) }
                checkOperationTypes(schema.operationTypes, &operationTypes)
            case .schemaExtension(let ext):
                checkOperationTypes(ext.operationTypes, &operationTypes)
            case .type(let type):
                let name = type.name.value
                if let first = typeNameLocations[name] {
                    report("There can be only one type named \"\(name)\".", [first, type.name.loc])
                } else {
                    typeNameLocations[name] = type.name.loc
                    definedTypes[name] = type
                }
            case .directive(let directive):
                let name = directive.name.value
                if let first = directiveNameLocations[name] {
                    report("There can be only one directive named \"@\(name)\".", [first, directive.name.loc])
                } else {
                    directiveNameLocations[name] = directive.name.loc
                    directiveDefinitions[name] = GraphQLDirective(
                        name: name,
                        locations: directive.locations.compactMap { DirectiveLocation(rawValue: $0.value) },
                        arguments: directive.arguments.map {
                            GraphQLInputValueDefinition(name: $0.name.value, type: ValueCoercion.typeReference($0.type),
                                                        defaultValue: $0.defaultValue == nil ? nil : .null)
                        },
                        isRepeatable: directive.repeatable
                    )
                }
            case .operation, .fragment, .typeExtension:
                break
            }
        }
        for definition in document.definitions { checkDefinition(definition) }
    }

    mutating func checkOperationTypes(_ types: [OperationTypeDefinition], _ seen: inout [OperationType: Location]) {
        for operationType in types {
            if let first = seen[operationType.operation] {
                report("There can be only one \(operationType.operation.rawValue) type in schema.", [first, operationType.loc])
            } else {
                seen[operationType.operation] = operationType.loc
            }
        }
    }

    mutating func checkTypeName(_ named: NamedType) {
        let name = named.name.value
        guard definedTypes[name] == nil, !GraphQLScalarType.specified.contains(where: { $0.name == name }),
              !IntrospectionTypes.all.contains(where: { $0.name == name }) else { return }
        let options = Array(definedTypes.keys) + GraphQLScalarType.specified.map(\.name)
        report("Unknown type \"\(name)\"." + InputSuggestions.didYouMean(InputSuggestions.list(name, options: options)), [named.loc])
    }

    mutating func checkTypeReference(_ type: TypeReference) { checkTypeName(type.namedType) }

    mutating func checkDefinition(_ definition: Definition) {
        switch definition {
        case .schema(let schema):
            checkDirectives(schema.directives, at: .schema)
            schema.operationTypes.forEach { checkTypeName($0.type) }
        case .schemaExtension(let ext):
            checkDirectives(ext.directives, at: .schema)
            ext.operationTypes.forEach { checkTypeName($0.type) }
        case .directive(let directive):
            checkArgumentDefinitions(directive.arguments, owner: "@" + directive.name.value)
        case .type(let type):
            checkType(type)
        case .typeExtension(let ext):
            checkExtension(ext)
        case .operation, .fragment:
            break
        }
    }

    mutating func checkType(_ type: TypeDefinition) {
        let name = type.name.value
        switch type {
        case .scalar(let node):
            checkDirectives(node.directives, at: .scalar)
        case .object(let node):
            checkDirectives(node.directives, at: .object)
            node.interfaces.forEach { checkTypeName($0) }
            checkFields(node.fields, typeName: name, seen: [])
        case .interface(let node):
            checkDirectives(node.directives, at: .interface)
            node.interfaces.forEach { checkTypeName($0) }
            checkFields(node.fields, typeName: name, seen: [])
        case .union(let node):
            checkDirectives(node.directives, at: .union)
            node.types.forEach { checkTypeName($0) }
        case .enumType(let node):
            checkDirectives(node.directives, at: .enum)
            checkEnumValues(node.values, typeName: name, seen: [])
        case .inputObject(let node):
            checkDirectives(node.directives, at: .inputObject)
            checkInputFields(node.fields, typeName: name, seen: [])
        }
    }

    mutating func checkExtension(_ ext: TypeExtension) {
        let name = ext.name.value
        guard let base = definedTypes[name] else {
            let options = Array(definedTypes.keys)
            report("Cannot extend type \"\(name)\" because it is not defined." + InputSuggestions.didYouMean(InputSuggestions.list(name, options: options)), [ext.name.loc])
            return
        }
        let kindMatches: Bool
        let kindName: String
        switch (base, ext) {
        case (.scalar, .scalar): kindMatches = true; kindName = "scalar"
        case (.object, .object): kindMatches = true; kindName = "object"
        case (.interface, .interface): kindMatches = true; kindName = "interface"
        case (.union, .union): kindMatches = true; kindName = "union"
        case (.enumType, .enumType): kindMatches = true; kindName = "enum"
        case (.inputObject, .inputObject): kindMatches = true; kindName = "input object"
        default:
            kindMatches = false
            switch ext {
            case .scalar: kindName = "scalar"
            case .object: kindName = "object"
            case .interface: kindName = "interface"
            case .union: kindName = "union"
            case .enumType: kindName = "enum"
            case .inputObject: kindName = "input object"
            }
        }
        guard kindMatches else {
            report("Cannot extend non-\(kindName) type \"\(name)\".", [base.loc, ext.loc])
            let location: DirectiveLocation
            switch ext {
            case .scalar: location = .scalar
            case .object: location = .object
            case .interface: location = .interface
            case .union: location = .union
            case .enumType: location = .enum
            case .inputObject: location = .inputObject
            }
            checkDirectives(ext.directives, at: location)
            return
        }
        switch (base, ext) {
        case (.scalar, .scalar(let node)):
            checkDirectives(base.directives + node.directives, at: .scalar, only: node.directives)
        case (.object(let baseNode), .object(let node)):
            checkDirectives(base.directives + node.directives, at: .object, only: node.directives)
            node.interfaces.forEach { checkTypeName($0) }
            checkFields(node.fields, typeName: name, seen: Set(baseNode.fields.map(\.name.value)))
        case (.interface(let baseNode), .interface(let node)):
            checkDirectives(base.directives + node.directives, at: .interface, only: node.directives)
            node.interfaces.forEach { checkTypeName($0) }
            checkFields(node.fields, typeName: name, seen: Set(baseNode.fields.map(\.name.value)))
        case (.union, .union(let node)):
            checkDirectives(base.directives + node.directives, at: .union, only: node.directives)
            node.types.forEach { checkTypeName($0) }
        case (.enumType(let baseNode), .enumType(let node)):
            checkDirectives(base.directives + node.directives, at: .enum, only: node.directives)
            checkEnumValues(node.values, typeName: name, seen: Set(baseNode.values.map(\.name.value)))
        case (.inputObject(let baseNode), .inputObject(let node)):
            checkDirectives(base.directives + node.directives, at: .inputObject, only: node.directives)
            checkInputFields(node.fields, typeName: name, seen: Set(baseNode.fields.map(\.name.value)))
        default:
            break
        }
    }

    mutating func checkFields(_ fields: [FieldDefinition], typeName: String, seen: Set<String>) {
        var seen = seen
        var locations: [String: Location] = [:]
        for field in fields {
            let name = field.name.value
            if !seen.insert(name).inserted {
                report("Field \"\(typeName).\(name)\" can only be defined once.", [locations[name], field.name.loc].compactMap { $0 })
            }
            locations[name] = locations[name] ?? field.name.loc
            checkTypeReference(field.type)
            checkDirectives(field.directives, at: .fieldDefinition)
            checkArgumentDefinitions(field.arguments, owner: "\(typeName).\(name)")
        }
    }

    mutating func checkArgumentDefinitions(_ arguments: [InputValueDefinition], owner: String) {
        var seen: [String: Location] = [:]
        for argument in arguments {
            let name = argument.name.value
            if let first = seen[name] {
                report("Argument \"\(owner)(\(name):)\" can only be defined once.", [first, argument.name.loc])
            } else {
                seen[name] = argument.name.loc
            }
            checkTypeReference(argument.type)
            checkDirectives(argument.directives, at: .argumentDefinition)
            if let value = argument.defaultValue { checkValue(value) }
        }
    }

    mutating func checkInputFields(_ fields: [InputValueDefinition], typeName: String, seen: Set<String>) {
        var seen = seen
        var locations: [String: Location] = [:]
        for field in fields {
            let name = field.name.value
            if !seen.insert(name).inserted {
                report("Field \"\(typeName).\(name)\" can only be defined once.", [locations[name], field.name.loc].compactMap { $0 })
            }
            locations[name] = locations[name] ?? field.name.loc
            checkTypeReference(field.type)
            checkDirectives(field.directives, at: .inputFieldDefinition)
            if let value = field.defaultValue { checkValue(value) }
        }
    }

    mutating func checkEnumValues(_ values: [EnumValueDefinition], typeName: String, seen: Set<String>) {
        var seen = seen
        var locations: [String: Location] = [:]
        for value in values {
            let name = value.name.value
            if !seen.insert(name).inserted {
                report("Enum value \"\(typeName).\(name)\" can only be defined once.", [locations[name], value.name.loc].compactMap { $0 })
            }
            locations[name] = locations[name] ?? value.name.loc
            checkDirectives(value.directives, at: .enumValue)
        }
    }

    /// Known directive, allowed location, not repeated, known / unique / required arguments.
    mutating func checkDirectives(_ directives: [Directive], at location: DirectiveLocation, only checked: [Directive]? = nil) {
        var seen: [String: Location] = [:]
        let toCheck = checked.map { Set($0.map(\.loc.start)) }
        for directive in directives {
            let isChecked = toCheck?.contains(directive.loc.start) ?? true
            let name = directive.name.value
            guard let definition = directiveDefinitions[name] else {
                if isChecked { report("Unknown directive \"@\(name)\".", [directive.name.loc]) }
                continue
            }
            if !definition.isRepeatable {
                if let first = seen[name] {
                    if isChecked { report("The directive \"@\(name)\" can only be used once at this location.", [first, directive.name.loc]) }
                } else {
                    seen[name] = directive.name.loc
                }
            }
            guard isChecked else { continue }
            if !definition.locations.contains(location) {
                report("Directive \"@\(name)\" may not be used on \(location.rawValue).", [directive.loc])
            }
            var argumentNames: [String: Location] = [:]
            for argument in directive.arguments {
                let argumentName = argument.name.value
                if let first = argumentNames[argumentName] {
                    report("There can be only one argument named \"\(argumentName)\".", [first, argument.name.loc])
                } else {
                    argumentNames[argumentName] = argument.name.loc
                }
                if definition.argument(named: argumentName) == nil {
                    let hint = InputSuggestions.didYouMean(InputSuggestions.list(argumentName, options: definition.arguments.map(\.name)))
                    report("Unknown argument \"\(argumentName)\" on directive \"@\(name)\".\(hint)", [argument.loc])
                }
                checkValue(argument.value)
            }
            for argument in definition.arguments where argument.isRequired && argumentNames[argument.name] == nil {
                report("Directive \"@\(name)\" argument \"\(argument.name)\" of type \"\(argument.type)\" is required, but it was not provided.", [directive.loc])
            }
        }
    }

    /// Unique input field names inside object literals.
    mutating func checkValue(_ value: Value) {
        switch value {
        case .list(let list):
            list.values.forEach { checkValue($0) }
        case .object(let object):
            var seen: [String: Location] = [:]
            for field in object.fields {
                if let first = seen[field.name.value] {
                    report("There can be only one input field named \"\(field.name.value)\".", [first, field.name.loc])
                } else {
                    seen[field.name.value] = field.name.loc
                }
                checkValue(field.value)
            }
        default:
            break
        }
    }
}
