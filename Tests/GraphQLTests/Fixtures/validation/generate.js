#!/usr/bin/env node
// Regenerates the validation fixtures: for every `cases/<Rule>.graphql` it runs
// graphql-js's `validate` (Debian's node-graphql 16.6, the reference) on each
// case and writes `<Rule>.json` with the exact messages and locations.
//
//   node Tests/GraphQLTests/Fixtures/validation/generate.js
//
// The rule list is graphql-js 16.6's `specifiedRules`, in order, with the
// additions PayQL makes after newer graphql-js releases and the September 2025
// specification (each written here, small, and marked "newer" below):
//   * KnownOperationTypes (spec 5.2.1.1 Operation Type Existence; graphql-js 17's
//     message), placed after LoneAnonymousOperation;
//   * SingleFieldSubscriptions with the Sep 2025 ban of @skip/@include at the
//     subscription root (graphql-js 16.11's behaviour);
//   * OneOf literal checks inside ValuesOfCorrectType (graphql-js 16.9's messages);
//   * VariablesInAllowedPosition with the OneOf nullable-variable check
//     (graphql-js 17's message and placement);
//   * MaxIntrospectionDepth (graphql-js 16.9+ recommended rule), last.
//
// Case file format: `### accepted: title` or `### rejected: title` starts a case;
// options go in brackets before the colon: `### rejected [schema=query-only, maxErrors=2]: title`.
// Lines before the first `###` are comments (`#`). For a rejected case the rule
// named by the file must itself report at least one error, and an accepted case
// must produce no error at all: the generator refuses to write a fixture otherwise.
'use strict';

const fs = require('fs');
const path = require('path');
const g = require('/usr/share/nodejs/graphql');

const here = __dirname;

function loadSchema(file) {
  const sdl = fs.readFileSync(path.join(here, file), 'utf8');
  // graphql-js 16.6 does not know @oneOf: declare it, and mark the types below.
  return g.buildSchema('directive @oneOf on INPUT_OBJECT\n' + sdl);
}

const schemas = {
  default: loadSchema('schema.graphql'),
  'query-only': loadSchema('schema-query-only.graphql'),
};

function isOneOf(type) {
  return g.isInputObjectType(type) && type.astNode != null &&
    (type.astNode.directives || []).some((d) => d.name.value === 'oneOf');
}

// ---- newer rules (see header) ---------------------------------------------

function KnownOperationTypesRule(context) {
  return {
    OperationDefinition(node) {
      if (!context.getSchema().getRootType(node.operation)) {
        context.reportError(new g.GraphQLError(
          `The ${node.operation} operation is not supported by the schema.`, { nodes: node }));
      }
    },
  };
}

function SingleFieldSubscriptionsRule(context) {
  return {
    OperationDefinition(node) {
      if (node.operation !== 'subscription') return;
      const schema = context.getSchema();
      const root = schema.getSubscriptionType();
      if (!root) return;
      const name = node.name ? node.name.value : null;
      const fragments = Object.create(null);
      for (const def of context.getDocument().definitions) {
        if (def.kind === g.Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
      }
      const fields = new Map();
      const forbidden = [];
      const visited = new Set();
      const matches = (frag) => {
        if (!frag.typeCondition) return true;
        const t = g.typeFromAST(schema, frag.typeCondition);
        if (t === root) return true;
        return g.isAbstractType(t) && schema.isSubType(t, root);
      };
      const included = (sel) => {
        const skip = (sel.directives || []).find((d) => d.name.value === 'skip');
        if (skip) { forbidden.push(skip); return false; }
        const include = (sel.directives || []).find((d) => d.name.value === 'include');
        if (include) { forbidden.push(include); return false; }
        return true;
      };
      const collect = (set) => {
        for (const sel of set.selections) {
          if (sel.kind === g.Kind.FIELD) {
            if (!included(sel)) continue;
            const key = sel.alias ? sel.alias.value : sel.name.value;
            if (!fields.has(key)) fields.set(key, []);
            fields.get(key).push(sel);
          } else if (sel.kind === g.Kind.INLINE_FRAGMENT) {
            if (!included(sel) || !matches(sel)) continue;
            collect(sel.selectionSet);
          } else {
            const fragName = sel.name.value;
            if (visited.has(fragName) || !included(sel)) continue;
            visited.add(fragName);
            const frag = fragments[fragName];
            if (!frag || !matches(frag)) continue;
            collect(frag.selectionSet);
          }
        }
      };
      collect(node.selectionSet);
      if (forbidden.length > 0) {
        context.reportError(new g.GraphQLError(name != null
          ? `Subscription "${name}" must not use \`@skip\` or \`@include\` directives in the top level selection.`
          : 'Anonymous Subscription must not use `@skip` or `@include` directives in the top level selection.',
        { nodes: forbidden }));
        return;
      }
      if (fields.size > 1) {
        const extra = [...fields.values()].slice(1).flat();
        context.reportError(new g.GraphQLError(name != null
          ? `Subscription "${name}" must select only one top level field.`
          : 'Anonymous Subscription must select only one top level field.', { nodes: extra }));
      }
      for (const nodes of fields.values()) {
        if (nodes[0].name.value.startsWith('__')) {
          context.reportError(new g.GraphQLError(name != null
            ? `Subscription "${name}" must not select an introspection top level field.`
            : 'Anonymous Subscription must not select an introspection top level field.', { nodes }));
        }
      }
    },
  };
}

// Runs right after ValuesOfCorrectType, skipping where it skips.
function OneOfLiteralsRule(context) {
  return {
    ListValue() {
      if (!g.isListType(g.getNullableType(context.getParentInputType()))) return false;
    },
    ObjectValue(node) {
      const type = g.getNamedType(context.getInputType());
      if (!g.isInputObjectType(type)) return false;
      if (!isOneOf(type)) return;
      const byName = new Map(node.fields.map((f) => [f.name.value, f]));
      const keys = [...byName.keys()];
      if (keys.length !== 1) {
        context.reportError(new g.GraphQLError(
          `OneOf Input Object "${type.name}" must specify exactly one key.`, { nodes: [node] }));
        return;
      }
      if (byName.get(keys[0]).value.kind === g.Kind.NULL) {
        context.reportError(new g.GraphQLError(
          `Field "${type.name}.${keys[0]}" must be non-null.`, { nodes: [node] }));
      }
    },
  };
}

function usagesOf(context, node, cache) {
  let usages = cache.get(node);
  if (usages) return usages;
  usages = [];
  const typeInfo = new g.TypeInfo(context.getSchema());
  g.visit(node, g.visitWithTypeInfo(typeInfo, {
    VariableDefinition: () => false,
    Variable(variable, _key, parent, _path, ancestors) {
      let oneOf;
      if (parent && parent.kind === g.Kind.OBJECT_FIELD) {
        const objectType = g.getNamedType(typeInfo.getParentInputType());
        if (isOneOf(objectType)) oneOf = objectType;
      }
      usages.push({ node: variable, type: typeInfo.getInputType(), defaultValue: typeInfo.getDefaultValue(), oneOf });
    },
  }));
  cache.set(node, usages);
  return usages;
}

function allowedVariableUsage(schema, varType, varDefault, locationType, locationDefault) {
  if (g.isNonNullType(locationType) && !g.isNonNullType(varType)) {
    const hasNonNullVariableDefault = varDefault != null && varDefault.kind !== g.Kind.NULL;
    if (!hasNonNullVariableDefault && locationDefault === undefined) return false;
    return g.isTypeSubTypeOf(schema, varType, locationType.ofType);
  }
  return g.isTypeSubTypeOf(schema, varType, locationType);
}

function VariablesInAllowedPositionRule(context) {
  let varDefs = Object.create(null);
  const cache = new Map();
  return {
    OperationDefinition: {
      enter() { varDefs = Object.create(null); },
      leave(operation) {
        let usages = usagesOf(context, operation, cache);
        for (const frag of context.getRecursivelyReferencedFragments(operation)) {
          usages = usages.concat(usagesOf(context, frag, cache));
        }
        const schema = context.getSchema();
        for (const { node, type, defaultValue, oneOf } of usages) {
          const varName = node.name.value;
          const varDef = varDefs[varName];
          if (!varDef || !type) continue;
          const varType = g.typeFromAST(schema, varDef.type);
          if (varType && !allowedVariableUsage(schema, varType, varDef.defaultValue, type, defaultValue)) {
            context.reportError(new g.GraphQLError(
              `Variable "$${varName}" of type "${String(varType)}" used in position expecting type "${String(type)}".`,
              { nodes: [varDef, node] }));
          }
          if (oneOf && varType && !g.isNonNullType(varType)) {
            context.reportError(new g.GraphQLError(
              `Variable "$${varName}" is of type "${String(varType)}" but must be non-nullable to be used for OneOf Input Object "${oneOf.name}".`,
              { nodes: [varDef, node] }));
          }
        }
      },
    },
    VariableDefinition(node) { varDefs[node.variable.name.value] = node; },
  };
}

function MaxIntrospectionDepthRule(context) {
  const lists = new Set(['fields', 'interfaces', 'possibleTypes', 'inputFields']);
  function tooDeep(node, visiting, depth) {
    if (node.kind === g.Kind.FRAGMENT_SPREAD) {
      const name = node.name.value;
      if (visiting.has(name)) return false;
      const fragment = context.getFragment(name);
      if (!fragment) return false;
      visiting.add(name);
      try { return tooDeep(fragment, visiting, depth); } finally { visiting.delete(name); }
    }
    if (node.kind === g.Kind.FIELD && lists.has(node.name.value)) {
      depth += 1;
      if (depth >= 3) return true;
    }
    if (node.selectionSet) {
      for (const child of node.selectionSet.selections) {
        if (tooDeep(child, visiting, depth)) return true;
      }
    }
    return false;
  }
  return {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        if (tooDeep(node, new Set(), 0)) {
          context.reportError(new g.GraphQLError('Maximum introspection depth exceeded', { nodes: [node] }));
          return false;
        }
      }
    },
  };
}

// ---- rule list ------------------------------------------------------------

const rules = [];
for (const rule of g.specifiedRules) {
  if (rule === g.SingleFieldSubscriptionsRule) {
    rules.push(SingleFieldSubscriptionsRule);
  } else if (rule === g.VariablesInAllowedPositionRule) {
    rules.push(VariablesInAllowedPositionRule);
  } else {
    rules.push(rule);
  }
  if (rule === g.LoneAnonymousOperationRule) rules.push(KnownOperationTypesRule);
  if (rule === g.ValuesOfCorrectTypeRule) rules.push(OneOfLiteralsRule);
}
rules.push(MaxIntrospectionDepthRule);

// The rule each case file is about: a graphql-js rule, or one of the above.
const ruleByName = {
  KnownOperationTypesRule,
  SingleFieldSubscriptionsRule,
  VariablesInAllowedPositionRule,
  MaxIntrospectionDepthRule,
};
function ruleNamed(name) {
  if (name.startsWith("_")) return [];
  if (name === 'OneOfInputObjectsRule') return [g.ValuesOfCorrectTypeRule, OneOfLiteralsRule, VariablesInAllowedPositionRule];
  if (ruleByName[name]) return [ruleByName[name]];
  if (g[name]) return [g[name]];
  throw new Error(`unknown rule ${name}`);
}

// ---- cases ----------------------------------------------------------------

function parseCases(text, file) {
  const cases = [];
  let current = null;
  for (const line of text.split('\n')) {
    const header = /^### (accepted|rejected)(?: \[([^\]]*)\])?: (.+)$/.exec(line);
    if (header) {
      const options = {};
      for (const part of (header[2] || '').split(',').map((s) => s.trim()).filter(Boolean)) {
        const [key, value] = part.split('=').map((s) => s.trim());
        options[key] = value;
      }
      current = { expect: header[1], name: header[3], options, lines: [] };
      cases.push(current);
    } else if (current) {
      current.lines.push(line);
    } else if (line.trim() !== '' && !line.startsWith('#')) {
      throw new Error(`${file}: text before the first case: ${line}`);
    }
  }
  return cases;
}

function toJSON(errors) {
  return errors.map((e) => ({
    message: e.message,
    locations: (e.locations || []).map((l) => ({ line: l.line, column: l.column })),
  }));
}

const files = fs.readdirSync(path.join(here, 'cases')).filter((f) => f.endsWith('.graphql')).sort();
let failures = 0;
for (const file of files) {
  const ruleName = file.replace(/\.graphql$/, '');
  const ownRules = ruleNamed(ruleName);
  const text = fs.readFileSync(path.join(here, 'cases', file), 'utf8');
  const out = [];
  for (const c of parseCases(text, file)) {
    const document = c.lines.join('\n').replace(/\n+$/, '') + '\n';
    const schemaName = c.options.schema || 'default';
    const schema = schemas[schemaName];
    if (!schema) throw new Error(`${file}: unknown schema ${schemaName}`);
    const maxErrors = c.options.maxErrors !== undefined ? Number(c.options.maxErrors) : undefined;
    const doc = g.parse(document);
    const errors = g.validate(schema, doc, rules, maxErrors !== undefined ? { maxErrors } : undefined);
    const own = ownRules.length ? g.validate(schema, doc, ownRules) : [];
    if (c.expect === 'accepted' && errors.length !== 0) {
      console.error(`${file}: "${c.name}" is marked accepted but graphql-js reports:\n  ` +
        errors.map((e) => e.message).join('\n  '));
      failures += 1;
    }
    if (c.expect === "rejected" && (ownRules.length ? own.length === 0 : errors.length === 0)) {
      console.error(`${file}: "${c.name}" is marked rejected but ${ruleName} reports nothing` +
        (errors.length ? ` (others do: ${errors.map((e) => e.message).join(' | ')})` : ''));
      failures += 1;
    }
    const entry = { name: c.name, expect: c.expect, schema: schemaName, document, errors: toJSON(errors) };
    if (maxErrors !== undefined) entry.maxErrors = maxErrors;
    out.push(entry);
  }
  fs.writeFileSync(path.join(here, ruleName + '.json'),
    JSON.stringify({ rule: ruleName, generatedBy: 'graphql-js ' + g.version, cases: out }, null, 2) + '\n');
}
if (failures > 0) {
  console.error(`${failures} case(s) mislabelled`);
  process.exit(1);
}
console.log(`wrote ${files.length} fixture files`);
