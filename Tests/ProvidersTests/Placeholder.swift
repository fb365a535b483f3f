import Testing

// Tests for the Providers target arrive with its implementation.
