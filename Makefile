# The two commands a fresh machine needs: `make demo` and `make test`.
# Both install what they need first (scripts/setup.sh is idempotent).

CARGO ?= cargo
RELEASE_BIN := target/release/testgen

.PHONY: setup build demo test lint bench bench-quick bench-micro

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release --locked -p testgen_cli

# Generates tests for the sample project fixtures/demo, then compiles and runs
# them with JUnit 5 and prints their JaCoCo line and branch coverage; then
# builds the Maven plugin (after plugin-common, the code both plugins share)
# and runs `mvn test` on a copy of the Maven sample
# fixtures/plugin-projects/maven-multi (scripts/maven-demo.sh).
JAVA_LIB := /usr/share/java
DEMO := target/demo
DEMO_JUNIT := $(JAVA_LIB)/junit-jupiter-api.jar:$(JAVA_LIB)/apiguardian-api.jar:$(JAVA_LIB)/opentest4j.jar:$(JAVA_LIB)/junit-platform-commons.jar
DEMO_JACOCO := $(JAVA_LIB)/org.jacoco.core.jar:$(JAVA_LIB)/asm.jar:$(JAVA_LIB)/asm-commons.jar:$(JAVA_LIB)/asm-tree.jar

demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)/classes $(DEMO)/test-classes $(DEMO)/jacoco
	@echo "== javac fixtures/demo -> $(DEMO)/classes"
	@javac --release 17 -g -encoding UTF-8 -d $(DEMO)/classes $$(find fixtures/demo/src -name '*.java' | sort)
	@echo "== testgen generate"
	$(RELEASE_BIN) generate --jobs 2 --classes $(DEMO)/classes --out $(DEMO)/generated-tests --report $(DEMO)/report
	@echo "== the generated tests"
	@find $(DEMO)/generated-tests -name '*.java' | sort | xargs wc -l
	@echo "== javac the generated tests, run them with JUnit 5 under JaCoCo (with -ea, as a build runs tests)"
	@javac -encoding UTF-8 -d $(DEMO)/test-classes -cp $(DEMO)/classes:$(DEMO_JUNIT) $$(find $(DEMO)/generated-tests -name '*.java' | sort)
	@cd $(DEMO)/jacoco && jar xf $(JAVA_LIB)/org.jacoco.agent.jar jacocoagent.jar
	@java -ea -javaagent:$(DEMO)/jacoco/jacocoagent.jar=destfile=$(DEMO)/jacoco/jacoco.exec,includes=demo.* \
	  -jar $(JAVA_LIB)/junit-platform-console-standalone.jar -cp $(DEMO)/test-classes:$(DEMO)/classes \
	  --scan-classpath $(DEMO)/test-classes --disable-banner --details=summary --fail-if-no-tests
	@echo "== JaCoCo coverage of fixtures/demo by the generated tests"
	@java -cp $(DEMO_JACOCO) fixtures/demo/tools/Coverage.java $(DEMO)/jacoco/jacoco.exec $(DEMO)/classes
	@echo "== A Maven multi-module project: from no generated tests to generated, passing ones"
	@bash scripts/maven-demo.sh $(RELEASE_BIN) $(DEMO)/maven

lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

# The whole suite: formatting, lints, unit and integration tests.
test: lint
	$(CARGO) test --locked --workspace -- --show-output

# The benchmark (scripts/bench.sh): builds in release mode, runs testgen with
# a fixed seed and limits on the fixtures, on every public class of Debian's
# commons-cli, commons-codec and commons-csv and on fixed samples of commons-io
# and gson, compiles and runs the generated
# tests with JUnit 5 under JaCoCo, re-runs testgen unchanged and after one
# class changed, and prints coverage, time, memory and incremental figures
# (JSON: target/bench/bench.json). Fails when a generated test fails or does
# not compile; asserts nothing about speed. Times measured: README, Benchmarks;
# bench-quick: a few classes, 2.5 minutes. BASE=<commit> builds that
# commit too and runs both alternately, side by side. BENCH_OPTS: more
# options (scripts/bench.sh --help).
bench: setup
	bash scripts/bench.sh $(if $(BASE),--base $(BASE)) $(BENCH_OPTS)

bench-quick: setup
	bash scripts/bench.sh --quick $(if $(BASE),--base $(BASE)) $(BENCH_OPTS)

# Micro-benchmarks (cargo bench): scan, instrumentation, executor plans and
# symbolic exploration throughput; figures only.
bench-micro: setup
	$(CARGO) bench --locked -p testgen_driver --bench scan
	$(CARGO) bench --locked -p testgen_probes --bench instrument
	$(CARGO) bench --locked -p testgen_exec --bench plans
	$(CARGO) bench --locked -p testgen_symbolic --bench explore

# Runs testgen on real Debian library jars (default: commons-cli, commons-codec,
# commons-csv), compiles and runs the generated tests with JUnit 5 under JaCoCo
# and prints, per jar, tests per class, compile errors, failures, line and
# branch coverage and testgen's own summary; fails when a generated test does
# not compile or fails. CORPUS_JARS, MAX_RUNS, BUDGET, JOBS: see the script.
.PHONY: corpus
corpus: build
	TESTGEN=$${CARGO_TARGET_DIR:-target}/release/testgen bash scripts/corpus-coverage.sh $(CORPUS_JARS)
