func fuzzPlaceholder() {}
