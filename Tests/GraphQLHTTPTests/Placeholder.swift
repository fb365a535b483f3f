import Testing

// Tests for the GraphQLHTTP target arrive with its implementation.
