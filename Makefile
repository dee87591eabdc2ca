# The two commands a fresh machine needs: `make demo` and `make test`.
# Both install what they need first (scripts/setup.sh is idempotent).

CARGO ?= cargo
RELEASE_BIN := target/release/testgen
DEMO_INPUT := /usr/share/java/commons-cli.jar

.PHONY: setup build demo test lint bench

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release --locked -p testgen_cli

# Runs the main job on a sample input. Today that job is `scan`; it grows
# into test generation for the sample projects in fixtures/.
demo: build
	@echo "== testgen scan: the first class record of $(DEMO_INPUT)"
	@$(RELEASE_BIN) scan --classes $(DEMO_INPUT) | head -n 1 | python3 -m json.tool
	@echo "== testgen scan --summary"
	@$(RELEASE_BIN) scan --summary --classes $(DEMO_INPUT)

lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

# The whole suite: formatting, lints, unit and integration tests.
test: lint
	$(CARGO) test --locked --workspace -- --show-output

# Benchmarks print figures; they assert nothing about speed.
bench: setup
	$(CARGO) bench --locked -p testgen_driver --bench scan
	$(CARGO) bench --locked -p testgen_probes --bench instrument
	$(CARGO) bench --locked -p testgen_exec --bench plans
