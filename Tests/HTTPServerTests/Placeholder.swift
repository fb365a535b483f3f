import Testing

// Tests for the HTTPServer target arrive with its implementation.
