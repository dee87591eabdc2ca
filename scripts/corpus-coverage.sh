#!/usr/bin/env bash
# Runs `testgen generate` on real library jars, then compiles the generated
# tests with javac, runs them with JUnit 5 under JaCoCo and prints, per jar:
# generated test classes and methods, tests per class (min/median/max), compile
# errors, test failures, JaCoCo line and branch coverage of the jar's classes
# and testgen's own summary from testgen-report.json.
#
#   scripts/corpus-coverage.sh [JAR...]     (or: make corpus)
#
# Default jars: Debian's commons-cli, commons-codec and commons-csv (none of
# them has a runtime dependency beyond the JDK: their Debian poms list none).
# Environment:
#   TESTGEN      the binary (default: $CARGO_TARGET_DIR/release/testgen, else target/release/testgen)
#   MAX_RUNS     --max-runs (default 40)     BUDGET  --budget seconds per class (default 60)
#   JOBS         --jobs (default 2)          SEED    --seed (default 0)
#   CORPUS_DIR   where everything goes (default target/corpus/<jar name>/)
#   CORPUS_CLASSPATH  --classpath for jars not in the table in deps_for (corpus-lib.sh)
#   EXTRA_GENERATE_OPTS  more `testgen generate` options, word-split (e.g. --exclude GLOB)
#   MEM_CAP_MIB  testgen is killed above this resident memory (default: half the RAM)
# The steps themselves are in scripts/corpus-lib.sh, shared with scripts/bench.sh.
#
# Exit status: non-zero when a generated test does not compile or fails (or
# testgen, javac or the JUnit launcher could not be run at all).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/corpus-lib.sh
. "$ROOT/scripts/corpus-lib.sh"
TESTGEN=$(default_testgen)
MAX_RUNS=${MAX_RUNS:-40}
BUDGET=${BUDGET:-60}
JOBS=${JOBS:-2}
SEED=${SEED:-0}
CORPUS_DIR=${CORPUS_DIR:-$ROOT/target/corpus}

if [ $# -eq 0 ]; then
  set -- $JAVA_LIB/commons-cli.jar $JAVA_LIB/commons-codec.jar $JAVA_LIB/commons-csv.jar
fi

# min/median/max of the numbers on stdin (one a line); "-" when there are none.
min_median_max() {
  sort -n | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "-/-/-"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%s/%s/%s\n", v[1], m, v[NR] }'
}

# testgen's summary from testgen-report.json (python3, else jq, else raw).
report_summary() {
  local report=$1
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$report" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
st = " ".join(f"{k}={v}" for k, v in sorted(s["statuses"].items()))
b, bc = s["branches"], s["branches_covered"]
pct = f"{100.0 * bc / b:.1f}%" if b else "n/a"
print(f"testgen report: classes={s['classes']} {st} tests={s['tests']} "
      f"branches_covered/branches={bc}/{b} ({pct}) infeasible={s.get('branches_infeasible', 0)} "
      f"wall={s['wall_seconds']:.1f}s problems={len(r.get('problems', []))}")
zero = [c["class"] for c in r["classes"] if c["status"] != "failed" and c["tests"] == 0]
print(f"testgen report: tests per class incl. classes with 0 tests (min/median/max): "
      + (lambda v: f"{v[0]}/{(v[len(v)//2] if len(v) % 2 else (v[len(v)//2-1] + v[len(v)//2]) / 2)}/{v[-1]}" if v else "-")(sorted(c["tests"] for c in r["classes"])))
print(f"testgen report: classes with 0 tests ({len(zero)}): {' '.join(zero) or '-'}")
for c in r["classes"]:
    if c["status"] == "failed":
        print(f"testgen report: FAILED class {c['class']}: {c.get('reason', c.get('error', ''))}")
for p in r.get("problems", []):
    print(f"testgen report: problem: {json.dumps(p)[:300]}")
slow = sorted(r["classes"], key=lambda c: -c["seconds"])[:3]
print("testgen report: slowest classes: " + ", ".join(f"{c['class']} {c['seconds']:.1f}s" for c in slow))
EOF
  elif command -v jq >/dev/null 2>&1; then
    jq -r '.summary | "testgen report: classes=\(.classes) statuses=\(.statuses|tostring) tests=\(.tests) branches_covered/branches=\(.branches_covered)/\(.branches) wall=\(.wall_seconds)s"' "$report"
  else
    echo "testgen report: (no python3 or jq; raw summary follows)"
    sed -n '/"summary"/,$p' "$report"
  fi
}

overall=0
summaries=()
for jar in "$@"; do
  name=$(basename "$jar" .jar)
  dir=$CORPUS_DIR/$name
  deps=$(deps_for "$jar")
  rm -rf "$dir" && mkdir -p "$dir/test-classes" "$dir/jacoco"
  echo "=================== $name ($(readlink -f "$jar"))"
  # shellcheck disable=SC2206
  opts=(--jobs "$JOBS" --max-runs "$MAX_RUNS" --budget "$BUDGET" --seed "$SEED" ${EXTRA_GENERATE_OPTS:-})
  echo "== testgen generate --classes $jar --classpath '$deps' --out $dir/generated-tests --report $dir/report ${opts[*]}"
  echo "   ($TESTGEN, $("$TESTGEN" --version 2>/dev/null || echo '?'); log: $dir/generate.log)"
  t0=$(date +%s)
  run_generate "$TESTGEN" "$dir/rusage.txt" "$dir/generate.log" --classes "$jar" --classpath "$deps" \
    --out "$dir/generated-tests" --report "$dir/report" "${opts[@]}"
  gen_rc=$?
  t1=$(date +%s)
  tail -n 1 "$dir/generate.log"
  echo "testgen generate: exit $gen_rc, $((t1 - t0)) s"
  if [ ! -f "$dir/report/testgen-report.json" ]; then
    echo "FAIL $name: testgen wrote no report (see $dir/generate.log)"
    overall=1
    summaries+=("$name: testgen failed (exit $gen_rc)")
    continue
  fi

  count_tests "$dir"
  files=("${test_files[@]}")
  per_class=$(cut -d' ' -f1 "$dir/tests-per-class.txt" | min_median_max)
  echo "generated: $test_classes test classes, $test_methods test methods; tests per test class (min/median/max): $per_class"
  # Tests whose body is, line for line, that of an earlier test in the same class.
  if [ "$test_classes" -gt 0 ]; then
    awk 'FNR == 1 { file = FILENAME; sub(".*/generated-tests/", "", file) }
         /^    @Test/ { intest = 1; header = 1; body = ""; next }
         intest && header { header = 0; next }
         intest && /^    }$/ { if (seen[file, body]++) dup[file]++; intest = 0; next }
         intest { body = body "\n" $0 }
         END { for (f in dup) print dup[f], f }' "${files[@]}" | sort -rn >"$dir/duplicate-tests.txt"
    dups=$(awk '{ s += $1 } END { print s + 0 }' "$dir/duplicate-tests.txt")
    echo "duplicate tests (same body as an earlier test of the same class): $dups$( [ "$dups" -gt 0 ] && echo "; most: $(head -n 3 "$dir/duplicate-tests.txt" | tr '\n' ';' | sed 's/;$//; s/;/, /g')")"
  fi

  compile_tests "$dir" "$jar${deps:+:$deps}"
  if [ ${#bad_files[@]} -gt 0 ]; then
    echo "COMPILE ERRORS: $compile_errors errors in ${#bad_files[@]} files (these are left out of the run; $dir/javac.log):"
    grep -E '\.java:[0-9]+: error:' "$dir/javac.log" | sed "s#^$dir/generated-tests/#  #" | head -n 40
    overall=1
  else
    echo "javac: all $test_classes test classes compile (0 errors)"
  fi

  # JUnit 5 under JaCoCo.
  tests_found=0 tests_ok=0 tests_failed=0 tests_aborted=0 tests_skipped=0 junit_rc=0
  if [ "$test_classes" -gt 0 ]; then
    run_junit "$dir" "$jar${deps:+:$deps}"
    echo "junit: exit $junit_rc, $junit_seconds s: found=${tests_found:-?} successful=${tests_ok:-?} failed=${tests_failed:-?} aborted=${tests_aborted:-?} skipped=${tests_skipped:-?} (log: $dir/junit.log)"
    if [ "${tests_failed:-1}" != 0 ] || [ "${tests_aborted:-1}" != 0 ] || [ "$junit_rc" != 0 ]; then
      overall=1
      echo "FAILURES (test, then the first lines of its exception; full traces in $dir/junit.log):"
      print_junit_failures "$dir"
    fi
    if [ -n "$tests_found" ] && [ "$tests_found" != "$test_methods" ]; then
      echo "note: JUnit found $tests_found tests, the sources have $test_methods @Test methods"
    fi
  fi

  if measure_coverage "$dir" "$jar"; then
    echo "jacoco over $(basename "$jar")'s classes: ${cov_total#TOTAL } (per class: $dir/coverage.txt)"
  fi

  report_summary "$dir/report/testgen-report.json"
  summaries+=("$name: $test_classes test classes, $test_methods tests (${dups:-0} duplicates), per class $per_class; compile errors $compile_errors; junit failed=${tests_failed:-?} of ${tests_found:-?}; jacoco ${cov_total#TOTAL }; generate $((t1 - t0)) s")
done

echo "=================== summary (--max-runs $MAX_RUNS --budget $BUDGET --jobs $JOBS --seed $SEED ${EXTRA_GENERATE_OPTS:-})"
printf '%s\n' "${summaries[@]}"
[ "$overall" -eq 0 ] && echo "OK: every generated test compiles and passes" || echo "NOT OK: see above"
exit "$overall"
