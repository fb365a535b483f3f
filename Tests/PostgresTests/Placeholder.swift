import Testing

// Tests for the Postgres target arrive with its implementation.
