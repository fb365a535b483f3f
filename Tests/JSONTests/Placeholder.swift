import Testing

// Tests for the JSON target arrive with its implementation.
