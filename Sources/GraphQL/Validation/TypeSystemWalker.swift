// Type-system definitions inside an executable document. ExecutableDefinitions
// rejects them, but graphql-js's other rules still visit them: unknown type
// names, directives (known, in a valid location, unique, with known, unique
// and required arguments) and duplicate input fields in default values. They
// are walked here in graphql-js's visiting order so that those errors match.

extension DocumentValidator {
    /// Walks one type-system definition of an executable document.
    func walkTypeSystemDefinition(_ definition: Definition) throws(ValidationAborted) {
        switch definition {
        case .schema(let node):
            try walkTypeSystemDirectives(node.directives, location: .schema, seenKey: .schema)
            for operationType in node.operationTypes {
                try checkKnownTypeName(operationType.type, inTypeSystem: true)
            }
        case .schemaExtension(let node):
            try walkTypeSystemDirectives(node.directives, location: .schema, seenKey: .schema)
            for operationType in node.operationTypes {
                try checkKnownTypeName(operationType.type, inTypeSystem: true)
            }
        case .type(let type):
            try walkTypeDefinition(type)
        case .typeExtension(let type):
            try walkTypeExtension(type)
        case .directive(let node):
            for argument in node.arguments {
                try walkInputValueDefinition(argument, location: .argumentDefinition)
            }
        case .operation, .fragment:
            break
        }
    }

    private func walkTypeDefinition(_ type: TypeDefinition) throws(ValidationAborted) {
        let key = TypeSystemDirectiveScope.type(type.name.value)
        switch type {
        case .scalar(let node):
            try walkTypeSystemDirectives(node.directives, location: .scalar, seenKey: key)
        case .object(let node):
            try walkObjectLike(interfaces: node.interfaces, directives: node.directives, fields: node.fields,
                               location: .object, key: key)
        case .interface(let node):
            try walkObjectLike(interfaces: node.interfaces, directives: node.directives, fields: node.fields,
                               location: .interface, key: key)
        case .union(let node):
            try walkTypeSystemDirectives(node.directives, location: .union, seenKey: key)
            for member in node.types { try checkKnownTypeName(member, inTypeSystem: true) }
        case .enumType(let node):
            try walkTypeSystemDirectives(node.directives, location: .enum, seenKey: key)
            for value in node.values {
                try walkTypeSystemDirectives(value.directives, location: .enumValue, seenKey: nil)
            }
        case .inputObject(let node):
            try walkTypeSystemDirectives(node.directives, location: .inputObject, seenKey: key)
            for field in node.fields { try walkInputValueDefinition(field, location: .inputFieldDefinition) }
        }
    }

    private func walkTypeExtension(_ type: TypeExtension) throws(ValidationAborted) {
        let key = TypeSystemDirectiveScope.type(type.name.value)
        switch type {
        case .scalar(let node):
            try walkTypeSystemDirectives(node.directives, location: .scalar, seenKey: key)
        case .object(let node):
            try walkObjectLike(interfaces: node.interfaces, directives: node.directives, fields: node.fields,
                               location: .object, key: key)
        case .interface(let node):
            try walkObjectLike(interfaces: node.interfaces, directives: node.directives, fields: node.fields,
                               location: .interface, key: key)
        case .union(let node):
            try walkTypeSystemDirectives(node.directives, location: .union, seenKey: key)
            for member in node.types { try checkKnownTypeName(member, inTypeSystem: true) }
        case .enumType(let node):
            try walkTypeSystemDirectives(node.directives, location: .enum, seenKey: key)
            for value in node.values {
                try walkTypeSystemDirectives(value.directives, location: .enumValue, seenKey: nil)
            }
        case .inputObject(let node):
            try walkTypeSystemDirectives(node.directives, location: .inputObject, seenKey: key)
            // graphql-js names only fields of input object *definitions* INPUT_FIELD_DEFINITION.
            for field in node.fields { try walkInputValueDefinition(field, location: .argumentDefinition) }
        }
    }

    private func walkObjectLike(
        interfaces: [NamedType],
        directives: [Directive],
        fields: [FieldDefinition],
        location: DirectiveLocation,
        key: TypeSystemDirectiveScope
    ) throws(ValidationAborted) {
        try checkUniqueTypeSystemDirectives(directives, seenKey: key)
        for interface in interfaces { try checkKnownTypeName(interface, inTypeSystem: true) }
        for directive in directives {
            try walkDirective(directive, location: location, fieldDefinition: nil, parentType: nil)
        }
        for field in fields {
            try checkUniqueDirectives(field.directives)
            for argument in field.arguments {
                try walkInputValueDefinition(argument, location: .argumentDefinition)
            }
            try checkKnownTypeName(field.type.namedType, inTypeSystem: true)
            for directive in field.directives {
                try walkDirective(directive, location: .fieldDefinition, fieldDefinition: nil, parentType: nil)
            }
        }
    }

    private func walkInputValueDefinition(_ value: InputValueDefinition, location: DirectiveLocation) throws(ValidationAborted) {
        try checkUniqueDirectives(value.directives)
        try checkKnownTypeName(value.type.namedType, inTypeSystem: true)
        if let defaultValue = value.defaultValue {
            // TypeInfo tracks no input type here: only duplicate input fields can be reported.
            try walkValue(defaultValue, ValidationValuePosition(type: nil, parentType: nil, hasDefault: false, oneOfType: nil),
                          checkValues: true)
        }
        for directive in value.directives {
            try walkDirective(directive, location: location, fieldDefinition: nil, parentType: nil)
        }
    }

    /// Directives of a type-system node: uniqueness is tracked per type name
    /// across its definition and extensions (and across schema definitions), as graphql-js does.
    private func walkTypeSystemDirectives(
        _ directives: [Directive],
        location: DirectiveLocation,
        seenKey: TypeSystemDirectiveScope?
    ) throws(ValidationAborted) {
        try checkUniqueTypeSystemDirectives(directives, seenKey: seenKey)
        for directive in directives {
            try walkDirective(directive, location: location, fieldDefinition: nil, parentType: nil)
        }
    }

    private func checkUniqueTypeSystemDirectives(
        _ directives: [Directive],
        seenKey: TypeSystemDirectiveScope?
    ) throws(ValidationAborted) {
        switch seenKey {
        case .schema:
            try checkUniqueDirectives(directives, seen: &schemaDirectivesSeen)
        case .type(let name):
            var seen = typeDirectivesSeen[name] ?? [:]
            try checkUniqueDirectives(directives, seen: &seen)
            typeDirectivesSeen[name] = seen
        case nil:
            try checkUniqueDirectives(directives)
        }
    }
}

/// Where UniqueDirectivesPerLocation remembers directives of type-system nodes.
enum TypeSystemDirectiveScope {
    case schema
    case type(String)
}
