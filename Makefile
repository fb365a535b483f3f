# PayQL: the two commands of the README are `make run` and `make test`.
# Each installs what is missing (scripts/install-deps.sh), builds and runs.
SWIFT ?= swift
CONFIG ?= release

.PHONY: deps build run test bench-graphql clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIG) --product payql

## Runs PayQL's main job: the server, with the embedded PostgreSQL unless
## DATABASE_URL is set (see README: Configuration). Extra flags: ARGS="...".
run: build
	"$$($(SWIFT) build -c $(CONFIG) --show-bin-path)/payql" serve $(ARGS)

## Runs every test:
##  1. the Swift test suites (PostgreSQL tests start a private cluster themselves),
##  2. the differential check of the GraphQL engine against graphql-js,
##  3. the providers' official Python SDKs (PyPI) against `payql sandbox`.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	PAYQL="$$($(SWIFT) build --show-bin-path)/payql" Tests/GraphQLDifferential/run.sh
	PAYQL_BIN="$$($(SWIFT) build --show-bin-path)/payql" Tests/ProviderSDKs/run.sh

clean:
	rm -rf .build .payql
