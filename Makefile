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
##  3. the providers' official Python SDKs (PyPI) against `payql sandbox`,
##  4. the ops page in headless Chromium against `payql serve` (Tests/browser),
##  5. real clients against `payql serve` with the sandbox: Python gql, graphql-js,
##     an Apollo-style APQ client, a bounded schemathesis run (Tests/Clients/run.sh),
##  6. the compose file, checked by Debian's docker-compose (no daemon needed).
## The Swift suites run in three groups so that CPU-heavy tests (the GraphQL
## engine's) do not share the two cores with the loopback tests that assert
## timeouts and deadlines.
PURE_TESTS = ^(CryptoTests|JSONTests|GraphQLTests|SupportTests)\.
DATABASE_TESTS = ^(PostgresTests|GatewayTests)\.
## HardKillTests watch for a short-lived initdb with a 10 ms poll: beside the busy
## Gateway suites the poll can be starved past initdb's whole life, so they run alone.
ALONE_TESTS = ^PostgresTests\.HardKillTests\b
LOOPBACK_TESTS = ^(HTTPServerTests|GraphQLHTTPTests|HTTPClientTests|ProvidersTests|SandboxTests)\.

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '$(PURE_TESTS)'
	$(SWIFT) test --skip-build --filter '$(DATABASE_TESTS)' --skip '$(ALONE_TESTS)'
	$(SWIFT) test --skip-build --filter '$(ALONE_TESTS)'
	$(SWIFT) test --skip-build --filter '$(LOOPBACK_TESTS)'
	$(SWIFT) test --skip-build --skip '$(PURE_TESTS)|$(DATABASE_TESTS)|$(LOOPBACK_TESTS)'
	PAYQL="$$($(SWIFT) build --show-bin-path)/payql" Tests/GraphQLDifferential/run.sh
	PAYQL_BIN="$$($(SWIFT) build --show-bin-path)/payql" Tests/ProviderSDKs/run.sh
	timeout 600 /usr/bin/python3 Tests/browser/ops_page_test.py "$$($(SWIFT) build --show-bin-path)/payql"
	PAYQL_BIN="$$($(SWIFT) build --show-bin-path)/payql" Tests/Clients/run.sh
	docker-compose -f docker/docker-compose.yml config --quiet

clean:
	rm -rf .build .payql
