import Testing

// Tests for the Sandbox target arrive with its implementation.
