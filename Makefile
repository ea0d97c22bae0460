# The README's commands: `make dev` runs the product, `make test` runs every test.
.PHONY: dev test build frontend bench gobench clean

GO_BINARIES := bin/web bin/worker bin/scheduler

## dev: build everything and run web, worker and scheduler (starts its own Postgres and Redis when DATABASE_URL / REDIS_URL are unset)
dev:
	scripts/dev.sh

## test: gofmt, go vet, go test -race, frontend lint/typecheck/unit/browser tests, compose check
test:
	scripts/test.sh

## build: the frontend bundle and the three binaries
build: frontend $(GO_BINARIES)

frontend:
	cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run build

bin/%: FORCE
	go build -o $@ ./cmd/$*

FORCE:

## bench: the product's benchmark against private Postgres and Redis, written to bench/RESULTS.md (SCALE=0.1 for a tenth of the data)
bench:
	bench/run.sh

## gobench: the Go benchmarks (the HTTP ones load the API on loopback against private Postgres and Redis)
gobench:
	BENCH=1 scripts/test.sh

clean:
	rm -rf bin frontend/dist
