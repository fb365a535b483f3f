import Testing

// Tests for the GraphQL target arrive with its implementation.
