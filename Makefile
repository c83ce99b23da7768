# Orderly — the two commands are `make run` and `make test`; see README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps deps-test build run demo check test deploy-test bench-wire bench-storage bench-orders bench-catalog bench-payments bench-notifications bench-marketplace bench-search profile-orders scaling-costs scaling-model backup-drill chaos fuzz-wire fuzz-api model-test client-test format clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

deps: ## Install the missing system packages building and running need (apt-get)
	@deploy/local/install-deps.sh

deps-test: ## Install the missing system packages the tests, benchmarks and checks need besides (apt-get)
	@deploy/local/install-deps.sh test

build: deps ## Build every product (debug)
	swift build

run: deps ## Build and run the suite locally on the embedded defaults (Ctrl-C stops it)
	@deploy/local/run.sh

demo: ## Run the suite (data in .build/demo) filled with three stores and a week of orders, then a trickle of new ones (Ctrl-C stops it; DEMO_ARGS=--force)
	@deploy/local/install-deps.sh demo
	@python3 deploy/local/demo.py $(DEMO_ARGS)

check: deps ## The inner loop, under 3 minutes warm: build with tests, the map's checks, every test on SQLite (no PostgreSQL, fuzzing or browser)
	@deploy/local/check.sh

test: deps-test ## Run the whole test suite
	@deploy/local/test.sh

deploy-test: deps-test ## Build the images with podman, start the compose file (orders and notifications ×2), kill replicas under load, tear down
	@deploy/local/deploy-test.sh

bench-wire: deps-test ## Wire round trips per second against a raw NIO echo (release build)
	swift build -c release --product orderly-bench
	"$$(swift build -c release --show-bin-path)/orderly-bench" bench-wire

bench-storage: deps-test ## Storage transactions/s (SQLite, PostgreSQL) and outbox-to-inbox events/s (release build)
	@deploy/local/bench-storage.sh

bench-orders: deps-test ## Load-generate against the suite (release) and check invariants; list pages at 1M orders
	@deploy/local/bench-orders.sh

bench-catalog: deps-test ## Reservations per second (hot product, 1,000 products) beside order creation; stock invariants (release)
	@deploy/local/bench-catalog.sh

bench-payments: deps-test ## Payments completed per second (cash, card, refunds) beside order creation; 90-day stats p99; invariants (release)
	@deploy/local/bench-payments.sh

bench-marketplace: deps-test ## Customers check out and pay (card, cash on delivery), stores and couriers serve them; checkouts/s, p99, CPU per checkout; invariants (release)
	@deploy/local/bench-marketplace.sh

bench-search: deps-test ## Stores found near a place and by a dish's name over 10,000 stores, SQLite and PostgreSQL: p50/p99 beside reading one store (release)
	@deploy/local/bench-search.sh

bench-notifications: deps-test ## A new order's way to 1,000 users' streams and long-polls: p50/p99 per channel, nothing lost (release)
	@deploy/local/bench-notifications.sh

profile-orders: deps-test ## Where each created order's CPU goes, per process and step (perf, release build)
	@deploy/local/profile-orders.sh

scaling-costs: deps-test ## What an order, a status change, a payment and an open stream cost each process, for the scaling model (release)
	@python3 deploy/scaling/measure.py deploy/scaling/costs.json

scaling-model: ## What a hundred times a busy day needs (docs/SCALING.md), from deploy/scaling/costs.json
	@python3 deploy/scaling/model.py deploy/scaling/costs.json deploy/scaling/hundredfold.toml

scaling-shards: deps-test ## The shard key proved: the suite (release) on a 3-master Redis Cluster and its orders across two PostgreSQL servers by store; loadgen and chaos on it
	@deploy/scaling/two-shards.sh

backup-drill: deps-test ## Back up every database under load, restore into a new suite, check every acknowledged write is there once
	@python3 deploy/local/backup-drill.py

chaos: deps-test ## The suite (release) under load while its processes and Redis are killed, then two gateways behind HAProxy while Redis is down; nothing acknowledged lost, no 5xx behind the proxy
	@deploy/local/chaos.sh

fuzz-wire: deps-test ## libFuzzer over the Wire frame decoder, envelope reader and JSON scanner (FUZZ_SECONDS=60)
	@deploy/local/fuzz-wire.sh

client-test: deps-test ## Generate the Swift client (swift-openapi-generator) from the served /openapi.yaml with 0 warnings, and drive a store's order through it
	@deploy/local/client-test.sh

fuzz-api: deps-test ## schemathesis against /openapi.yaml, a user of each role (FUZZ_API_EXAMPLES=25)
	@deploy/local/fuzz-api.sh

model-test: deps-test ## Random walks of every role through the API beside a model of its money and visibility; regressions first (MODEL_SEED, MODEL_EXAMPLES)
	@deploy/local/model-test.sh

format: ## Apply the house formatting (.swift-format)
	swift format --in-place --recursive --configuration .swift-format Package.swift Shared Services Tools Tests

clean: ## Remove build products and local data
	rm -rf .build .build-fuzz .build-static .build-container .venv-k8s .orderly
