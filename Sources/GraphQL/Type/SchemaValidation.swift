/// Type-system validation (spec §3 "Type Validation" rules; graphql-js
/// `validateSchema`): root types are objects, names do not start with `__`,
/// objects and interfaces implement their interfaces correctly (including
/// interfaces implementing interfaces), unions hold object types, input objects
/// have no cycle of non-null fields, `@oneOf` fields are nullable without defaults.
/// Messages are worded as graphql-js words them.
public func validateSchema(_ schema: GraphQLSchema) -> [GraphQLError] {
    var validator = SchemaValidator(schema: schema)
    validator.run()
    return validator.errors
}

struct SchemaValidator {
    let schema: GraphQLSchema
    var errors: [GraphQLError] = []

    init(schema: GraphQLSchema) { self.schema = schema }

    mutating func report(_ message: String) { errors.append(GraphQLError(message)) }

    mutating func run() {
        validateRootTypes()
        validateDirectives()
        var visitedInputs = Set<String>()
        let introspectionNames = Set(IntrospectionTypes.all.map(\.name))
        for type in schema.types where !introspectionNames.contains(type.name) {
            validateName(type.name)
            switch type {
            case .object(let object):
                validateFields(object.name, object.fields)
                validateInterfaces(object.name, object.interfaces, typeDescription: object.name)
            case .interface(let interface):
                validateFields(interface.name, interface.fields)
                validateInterfaces(interface.name, interface.interfaces, typeDescription: interface.name)
            case .union(let union):
                validateUnion(union)
            case .enum(let enumType):
                if enumType.values.isEmpty { report("Enum type \(enumType.name) must define one or more values.") }
                for value in enumType.values { validateName(value.name) }
            case .inputObject(let input):
                validateInputObject(input)
                validateInputCycles(input, visited: &visitedInputs)
            case .scalar:
                break
            }
        }
    }

    mutating func validateName(_ name: String) {
        if name.hasPrefix("__") {
            report("Name \"\(name)\" must not begin with \"__\", which is reserved by GraphQL introspection.")
        }
    }

    mutating func validateRootTypes() {
        if let name = schema.queryTypeName {
            if schema.objectType(named: name) == nil {
                report("Query root type must be Object type, it cannot be \(name).")
            }
        } else {
            report("Query root type must be provided.")
        }
        if let name = schema.mutationTypeName, schema.objectType(named: name) == nil {
            report("Mutation root type must be Object type if provided, it cannot be \(name).")
        }
        if let name = schema.subscriptionTypeName, schema.objectType(named: name) == nil {
            report("Subscription root type must be Object type if provided, it cannot be \(name).")
        }
    }

    mutating func validateDirectives() {
        for directive in schema.directives {
            validateName(directive.name)
            var seen = Set<String>()
            for argument in directive.arguments {
                validateName(argument.name)
                if !seen.insert(argument.name).inserted {
                    report("Argument @\(directive.name)(\(argument.name):) can only be defined once.")
                }
                if !schema.isInputType(argument.type) {
                    report("The type of @\(directive.name)(\(argument.name):) must be Input Type but got: \(argument.type).")
                }
                if argument.isRequired, argument.isDeprecated {
                    report("Required argument @\(directive.name)(\(argument.name):) cannot be deprecated.")
                }
            }
        }
    }

    mutating func validateFields(_ typeName: String, _ fields: [GraphQLFieldDefinition]) {
        if fields.isEmpty { report("Type \(typeName) must define one or more fields.") }
        for field in fields {
            validateName(field.name)
            if !schema.isOutputType(field.type) {
                report("The type of \(typeName).\(field.name) must be Output Type but got: \(field.type).")
            }
            for argument in field.arguments {
                validateName(argument.name)
                if !schema.isInputType(argument.type) {
                    report("The type of \(typeName).\(field.name)(\(argument.name):) must be Input Type but got: \(argument.type).")
                }
                if argument.isRequired, argument.isDeprecated {
                    report("Required argument \(typeName).\(field.name)(\(argument.name):) cannot be deprecated.")
                }
            }
        }
    }

    mutating func validateInterfaces(_ typeName: String, _ interfaces: [String], typeDescription: String) {
        var seen = Set<String>()
        for interfaceName in interfaces {
            guard case .interface(let interface)? = schema.type(named: interfaceName) else {
                report("Type \(typeName) must only implement Interface types, it cannot implement \(interfaceName).")
                continue
            }
            if interfaceName == typeName {
                report("Type \(typeName) cannot implement itself because it would create a circular reference.")
                continue
            }
            if !seen.insert(interfaceName).inserted {
                report("Type \(typeName) can only implement \(interfaceName) once.")
                continue
            }
            // Every interface the interface implements must be implemented too.
            for transitive in interface.interfaces where !interfaces.contains(transitive) {
                if transitive == typeName {
                    report("Type \(typeName) cannot implement \(interfaceName) because it would create a circular reference.")
                } else {
                    report("Type \(typeName) must implement \(transitive) because it is implemented by \(interfaceName).")
                }
            }
            validateImplementation(typeName, interface)
        }
    }

    mutating func validateImplementation(_ typeName: String, _ interface: GraphQLInterfaceType) {
        guard let type = schema.type(named: typeName), let typeFields = type.fields else { return }
        for interfaceField in interface.fields {
            let fieldName = interfaceField.name
            guard let typeField = typeFields.first(where: { $0.name == fieldName }) else {
                report("Interface field \(interface.name).\(fieldName) expected but \(typeName) does not provide it.")
                continue
            }
            if !schema.isTypeSubType(typeField.type, of: interfaceField.type) {
                report("Interface field \(interface.name).\(fieldName) expects type \(interfaceField.type) but \(typeName).\(fieldName) is type \(typeField.type).")
            }
            for interfaceArgument in interfaceField.arguments {
                guard let typeArgument = typeField.argument(named: interfaceArgument.name) else {
                    report("Interface field argument \(interface.name).\(fieldName)(\(interfaceArgument.name):) expected but \(typeName).\(fieldName) does not provide it.")
                    continue
                }
                if typeArgument.type != interfaceArgument.type {
                    report("Interface field argument \(interface.name).\(fieldName)(\(interfaceArgument.name):) expects type \(interfaceArgument.type) but \(typeName).\(fieldName)(\(interfaceArgument.name):) is type \(typeArgument.type).")
                }
            }
            for typeArgument in typeField.arguments where typeArgument.isRequired && interfaceField.argument(named: typeArgument.name) == nil {
                report("Object field \(typeName).\(fieldName) includes required argument \(typeArgument.name) that is missing from the Interface field \(interface.name).\(fieldName).")
            }
        }
    }

    mutating func validateUnion(_ union: GraphQLUnionType) {
        if union.members.isEmpty { report("Union type \(union.name) must define one or more member types.") }
        var seen = Set<String>()
        for member in union.members {
            if !seen.insert(member).inserted {
                report("Union type \(union.name) can only include type \(member) once.")
                continue
            }
            if schema.objectType(named: member) == nil {
                report("Union type \(union.name) can only include Object types, it cannot include \(member).")
            }
        }
    }

    mutating func validateInputObject(_ input: GraphQLInputObjectType) {
        if input.fields.isEmpty { report("Input Object type \(input.name) must define one or more fields.") }
        for field in input.fields {
            validateName(field.name)
            if !schema.isInputType(field.type) {
                report("The type of \(input.name).\(field.name) must be Input Type but got: \(field.type).")
            }
            if field.isRequired, field.isDeprecated {
                report("Required input field \(input.name).\(field.name) cannot be deprecated.")
            }
            if input.isOneOf {
                if field.type.isNonNull { report("OneOf input field \(input.name).\(field.name) must be nullable.") }
                if field.hasDefaultValue { report("OneOf input field \(input.name).\(field.name) cannot have a default value.") }
            }
        }
    }

    /// Reports each cycle of non-null input object fields once (graphql-js `createInputObjectCircularRefsValidator`).
    mutating func validateInputCycles(_ root: GraphQLInputObjectType, visited: inout Set<String>) {
        var path: [String] = []
        var pathIndex: [String: Int] = [:]
        func detect(_ input: GraphQLInputObjectType, _ validator: inout SchemaValidator, _ visited: inout Set<String>) {
            guard visited.insert(input.name).inserted else { return }
            pathIndex[input.name] = path.count
            for field in input.fields {
                guard case .nonNull(.named(let name)) = field.type,
                      case .inputObject(let fieldType)? = validator.schema.type(named: name) else { continue }
                path.append(field.name)
                if let start = pathIndex[name] {
                    let cycle = path[start...].joined(separator: ".")
                    validator.report("Cannot reference Input Object \"\(name)\" within itself through a series of non-null fields: \"\(cycle)\".")
                } else {
                    detect(fieldType, &validator, &visited)
                }
                path.removeLast()
            }
            pathIndex[input.name] = nil
        }
        detect(root, &self, &visited)
    }
}
