// The one walk over the document. At every node it keeps what graphql-js's
// TypeInfo keeps (parent type, field definition, expected input type, default
// value) as parameters of the recursion, and calls the rules that graphql-js
// runs at that node in `specifiedRules` order.

/// What graphql-js's TypeInfo knows at a value: the expected input type, the
/// type of the enclosing position, and whether the position has a default.
struct ValidationValuePosition {
    /// `getInputType()`.
    var type: GraphQLTypeReference?
    /// `getParentInputType()`.
    var parentType: GraphQLTypeReference?
    /// Whether `getDefaultValue()` is defined (an argument or input field default).
    var hasDefault: Bool
    /// The OneOf input object whose field this value is, if any.
    var oneOfType: String?
}

extension DocumentValidator {
    // MARK: Document

    func walkDocument() throws(ValidationAborted) {
        try checkExecutableDefinitions()
        for index in fragmentAt.indices {
            if let operation = operationAt[index] {
                try walkOperation(operation, index: index)
            } else if let fragment = fragmentAt[index] {
                try walkFragmentDefinition(fragment, index: index)
            } else {
                try walkTypeSystemDefinition(document.definitions[index])
            }
        }
        try checkNoUnusedFragments()
    }

    // MARK: Operations

    func walkOperation(_ operation: OperationDefinition, index: Int) throws(ValidationAborted) {
        try checkUniqueOperationName(operation)
        try checkLoneAnonymousOperation(operation)
        let rootType = self.rootType(of: operation.operation)
        try checkKnownOperationType(operation, rootType: rootType)
        try checkSingleFieldSubscription(operation)
        try checkUniqueVariableNames(operation)
        try checkUniqueDirectives(operation.directives)

        currentUsages.removeAll(keepingCapacity: true)
        for definition in operation.variableDefinitions {
            try walkVariableDefinition(definition)
        }
        let location: DirectiveLocation = switch operation.operation {
        case .query: .query
        case .mutation: .mutation
        case .subscription: .subscription
        }
        for directive in operation.directives {
            try walkDirective(directive, location: location, fieldDefinition: nil, parentType: nil)
        }
        try walkSelectionSet(operation.selectionSet, type: rootType, fieldDefinition: nil, introspectionChecked: false)

        // Leaving the operation: the checks over all its variable usages.
        let usages = currentUsages
        let referenced = recursivelyReferencedFragments(of: operation.selectionSet)
        referencedFragmentsByOperation.append(referenced)
        if referenced.allSatisfy({ fragmentUsages[$0] != nil }) {
            try operationEndChecks(definitionIndex: index, ownUsages: usages, referenced: referenced)
        } else {
            deferredChecks.append(DeferredOperationEndCheck(definitionIndex: index, errorPosition: errors.count,
                                                            usages: usages, referenced: referenced))
        }
    }

    func walkVariableDefinition(_ definition: VariableDefinition) throws(ValidationAborted) {
        let type = typeFromAST(definition.type)
        try checkVariableIsInputType(definition, type: type)
        try checkUniqueDirectives(definition.directives)
        try checkKnownTypeName(definition.type.namedType, inTypeSystem: false)
        let inputType = type.flatMap { catalog.namedType(of: $0)?.isInput ?? false ? $0 : nil }
        if let value = definition.defaultValue {
            try walkValue(value, ValidationValuePosition(type: inputType, parentType: nil, hasDefault: false, oneOfType: nil), checkValues: true)
        }
        for directive in definition.directives {
            try walkDirective(directive, location: .variableDefinition, fieldDefinition: nil, parentType: nil)
        }
    }

    // MARK: Fragments

    func walkFragmentDefinition(_ fragment: FragmentDefinition, index: Int) throws(ValidationAborted) {
        let conditionType = catalog.type(named: fragment.typeCondition.name.value)
        try checkFragmentDefinitionIsComposite(fragment, type: conditionType)
        try checkUniqueFragmentName(fragment)
        try checkFragmentCycles(fragment, index: index)
        try checkUniqueDirectives(fragment.directives)
        try checkKnownTypeName(fragment.typeCondition, inTypeSystem: false)

        currentUsages.removeAll(keepingCapacity: true)
        for directive in fragment.directives {
            try walkDirective(directive, location: .fragmentDefinition, fieldDefinition: nil, parentType: nil)
        }
        let outputType = conditionType.flatMap { $0.isOutput ? $0 : nil }
        try walkSelectionSet(fragment.selectionSet, type: outputType, fieldDefinition: nil, introspectionChecked: false)
        fragmentUsages[index] = currentUsages
    }

    // MARK: Selections

    /// `type` is the named type of the enclosing field, operation or fragment
    /// (graphql-js `getNamedType(getType())`); `fieldDefinition` the enclosing field's.
    func walkSelectionSet(
        _ selectionSet: SelectionSet,
        type: ValidationType?,
        fieldDefinition: ValidationField?,
        introspectionChecked: Bool
    ) throws(ValidationAborted) {
        var parentType: ValidationType?
        if let type, type.isComposite { parentType = type }
        if !collectOnly {
            try checkOverlappingFields(selectionSet, parentType: parentType)
        }
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                try walkField(field, parentType: parentType, introspectionChecked: introspectionChecked)
            case .fragmentSpread(let spread):
                try walkFragmentSpread(spread, parentType: parentType, fieldDefinition: fieldDefinition)
            case .inlineFragment(let inline):
                try walkInlineFragment(inline, enclosingType: type, parentType: parentType,
                                       fieldDefinition: fieldDefinition, introspectionChecked: introspectionChecked)
            }
        }
    }

    func walkField(_ field: Field, parentType: ValidationType?, introspectionChecked: Bool) throws(ValidationAborted) {
        var definition: ValidationField?
        var namedType: ValidationType?
        if let parentType {
            definition = catalog.field(on: parentType, named: field.name.value)
            if let definition { namedType = catalog.namedType(of: definition) }
        }
        try checkScalarLeaf(field, type: definition?.type, namedType: namedType)
        try checkFieldOnCorrectType(field, parentType: parentType, definition: definition)
        try checkUniqueDirectives(field.directives)
        try checkUniqueArguments(field.arguments)
        var childIntrospectionChecked = introspectionChecked
        if !introspectionChecked {
            childIntrospectionChecked = try checkIntrospectionDepth(field)
        }

        for argument in field.arguments {
            try walkArgument(argument, fieldDefinition: definition, directive: nil, inDirective: false, parentType: parentType)
        }
        for directive in field.directives {
            try walkDirective(directive, location: .field, fieldDefinition: definition, parentType: parentType)
        }
        if let selectionSet = field.selectionSet {
            let outputType = namedType.flatMap { $0.isOutput ? $0 : nil }
            try walkSelectionSet(selectionSet, type: outputType, fieldDefinition: definition,
                                 introspectionChecked: childIntrospectionChecked)
        }
        try checkProvidedFieldArguments(field, definition: definition)
    }

    func walkFragmentSpread(
        _ spread: FragmentSpread,
        parentType: ValidationType?,
        fieldDefinition: ValidationField?
    ) throws(ValidationAborted) {
        try checkKnownFragmentName(spread)
        try checkPossibleFragmentSpread(spread, parentType: parentType)
        try checkUniqueDirectives(spread.directives)
        for directive in spread.directives {
            try walkDirective(directive, location: .fragmentSpread, fieldDefinition: fieldDefinition, parentType: parentType)
        }
    }

    func walkInlineFragment(
        _ inline: InlineFragment,
        enclosingType: ValidationType?,
        parentType: ValidationType?,
        fieldDefinition: ValidationField?,
        introspectionChecked: Bool
    ) throws(ValidationAborted) {
        // TypeInfo: the condition's type, or the enclosing named type.
        let type: ValidationType?
        if let condition = inline.typeCondition {
            type = catalog.type(named: condition.name.value)
        } else {
            type = enclosingType
        }
        let outputType = type.flatMap { $0.isOutput ? $0 : nil }
        try checkInlineFragmentIsComposite(inline, type: type)
        try checkPossibleInlineFragment(inline, type: outputType, parentType: parentType)
        try checkUniqueDirectives(inline.directives)
        if let condition = inline.typeCondition {
            try checkKnownTypeName(condition, inTypeSystem: false)
        }
        for directive in inline.directives {
            try walkDirective(directive, location: .inlineFragment, fieldDefinition: fieldDefinition, parentType: parentType)
        }
        try walkSelectionSet(inline.selectionSet, type: outputType, fieldDefinition: fieldDefinition,
                             introspectionChecked: introspectionChecked)
    }

    // MARK: Directives and arguments

    /// `fieldDefinition` is TypeInfo's `getFieldDef()` here: the field the
    /// directive is on, or the field whose selection set holds it.
    func walkDirective(
        _ directive: Directive,
        location: DirectiveLocation,
        fieldDefinition: ValidationField?,
        parentType: ValidationType?
    ) throws(ValidationAborted) {
        let schemaDirective = schema.directive(named: directive.name.value)
        try checkKnownDirective(directive, location: location)
        try checkKnownDirectiveArguments(directive)
        try checkUniqueArguments(directive.arguments)
        for argument in directive.arguments {
            try walkArgument(argument, fieldDefinition: fieldDefinition, directive: schemaDirective,
                             inDirective: true, parentType: parentType)
        }
        try checkProvidedDirectiveArguments(directive)
    }

    func walkArgument(
        _ argument: Argument,
        fieldDefinition: ValidationField?,
        directive: GraphQLDirective?,
        inDirective: Bool,
        parentType: ValidationType?
    ) throws(ValidationAborted) {
        // TypeInfo looks the argument up on the directive, else on the field.
        let definition: GraphQLInputValueDefinition?
        if let directive {
            definition = directive.argument(named: argument.name.value)
        } else {
            definition = fieldDefinition?.argument(named: argument.name.value)
        }
        if !inDirective {
            try checkKnownFieldArgument(argument, definition: definition, fieldDefinition: fieldDefinition, parentType: parentType)
        }
        let position = ValidationValuePosition(
            type: definition?.type,
            parentType: nil,
            hasDefault: definition?.defaultValue != nil,
            oneOfType: nil
        )
        try walkValue(argument.value, position, checkValues: true)
    }

    // MARK: Values

    /// `checkValues` is false below a list or object that ValuesOfCorrectType
    /// already rejected as a whole (graphql-js's rule stops descending there).
    func walkValue(_ value: Value, _ position: ValidationValuePosition, checkValues: Bool) throws(ValidationAborted) {
        switch value {
        case .variable(let variable):
            currentUsages.append(ValidationVariableUsage(
                name: variable.name.value,
                offset: variable.loc.start,
                type: position.type,
                hasLocationDefault: position.hasDefault,
                oneOfType: position.oneOfType
            ))
        case .int, .float, .string, .boolean, .enumValue:
            if checkValues { try checkLeafValue(value, locationType: position.type) }
        case .null(let null):
            if checkValues { try checkNullValue(null, type: position.type) }
        case .list(let list):
            // TypeInfo: a list position's items expect the item type; a
            // non-list position expects its own (nullable) type for each item.
            let nullable = position.type?.nullable
            let itemType: GraphQLTypeReference?
            if case .list(let inner)? = nullable { itemType = inner } else { itemType = nullable }
            var checkItems = checkValues
            if checkValues {
                checkItems = try checkListValue(value, positionType: position.type, itemType: itemType)
            }
            let itemPosition = ValidationValuePosition(type: itemType, parentType: position.type, hasDefault: false, oneOfType: nil)
            for item in list.values {
                try walkValue(item, itemPosition, checkValues: checkItems)
            }
        case .object(let object):
            var checkFields = checkValues
            let objectType = position.type.flatMap { schema.namedType(of: $0) }
            var inputObject: GraphQLInputObjectType?
            if case .inputObject(let type)? = objectType { inputObject = type }
            if checkValues {
                checkFields = try checkObjectValue(object, value: value, locationType: position.type, inputObject: inputObject)
            }
            var seen: [String: Int] = [:]
            for (fieldIndex, field) in object.fields.enumerated() {
                let definition = inputObject?.field(named: field.name.value)
                if checkFields {
                    try checkObjectFieldDefined(field, definition: definition, inputObject: inputObject)
                }
                try checkUniqueInputField(field, index: fieldIndex, in: object, seen: &seen)
                let fieldPosition = ValidationValuePosition(
                    type: definition?.type,
                    parentType: position.type,
                    hasDefault: definition?.defaultValue != nil,
                    oneOfType: (inputObject?.isOneOf ?? false) ? inputObject?.name : nil
                )
                try walkValue(field.value, fieldPosition, checkValues: checkFields)
            }
        }
    }
}
