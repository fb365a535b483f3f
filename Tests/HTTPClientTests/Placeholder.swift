import Testing

// Tests for the HTTPClient target arrive with its implementation.
