/// PayQL's GraphQL engine: language, schema, validation, execution and
/// introspection, written to the GraphQL specification. Imports the standard
/// library (and PayQL's `JSON` values) only: no Foundation, no I/O.
public enum GraphQLEngine {}
