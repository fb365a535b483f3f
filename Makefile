# PayQL: the two commands of the README are `make run` and `make test`.
# Each installs what is missing (scripts/install-deps.sh), builds and runs.
SWIFT ?= swift
CONFIG ?= release

.PHONY: deps build run test test-only bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIG) --product payql

## Runs PayQL's main job: the server, with the embedded PostgreSQL and the
## provider sandbox unless configured otherwise (see README: Configuration).
run: build
	$$($(SWIFT) build -c $(CONFIG) --show-bin-path)/payql serve $(ARGS)

## Runs every test. Tests that need PostgreSQL start a private cluster
## themselves (Postgres target's embedded cluster), as the server does.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel

clean:
	rm -rf .build .payql
