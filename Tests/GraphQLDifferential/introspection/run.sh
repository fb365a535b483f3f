#!/bin/sh
# Introspection round trip through graphql-js (see README.md). Needs node + node-graphql.
set -eu
cd "$(dirname "$0")/../../.."
query=Tests/GraphQLTests/Fixtures/introspection/introspection-query.graphql
node Tests/GraphQLDifferential/introspection/compare.js --query > "$query.new"
if ! cmp -s "$query" "$query.new"; then
    echo "graphql-js's introspection query changed; updating $query"
    mv "$query.new" "$query"
else
    rm -f "$query.new"
fi
swift test --filter 'IntrospectionTests' 2>&1 | tail -n 3
