# Shared steps of scripts/corpus-coverage.sh and scripts/bench.sh, sourced by
# both: run `testgen generate` (timed, under a memory cap), compile the
# generated tests with javac, run them with JUnit 5 under JaCoCo and measure
# JaCoCo line and branch coverage. Each step leaves its files in a directory
# given by the caller and sets a few variables named below.
# shellcheck shell=bash

CORPUS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JAVA_LIB=/usr/share/java
# The same JUnit 5 and JaCoCo jars as `make demo`.
JUNIT=$JAVA_LIB/junit-jupiter-api.jar:$JAVA_LIB/apiguardian-api.jar:$JAVA_LIB/opentest4j.jar:$JAVA_LIB/junit-platform-commons.jar
JACOCO=$JAVA_LIB/org.jacoco.core.jar:$JAVA_LIB/asm.jar:$JAVA_LIB/asm-commons.jar:$JAVA_LIB/asm-tree.jar
COVERAGE_TOOL=$CORPUS_ROOT/fixtures/demo/tools/Coverage.java
# testgen is killed when its resident memory passes this many MiB (default:
# half the machine's memory), so that a runaway exploration fails the run
# instead of taking the machine down.
MEM_CAP_MIB=${MEM_CAP_MIB:-$(awk '/^MemTotal:/ { print int($2 / 2048) }' /proc/meminfo)}

# The testgen binary: $TESTGEN, else the release build in $CARGO_TARGET_DIR,
# else in target/.
default_testgen() {
  if [ -n "${TESTGEN:-}" ]; then
    echo "$TESTGEN"
  elif [ -n "${CARGO_TARGET_DIR:-}" ] && [ -x "$CARGO_TARGET_DIR/release/testgen" ]; then
    echo "$CARGO_TARGET_DIR/release/testgen"
  else
    echo "$CORPUS_ROOT/target/release/testgen"
  fi
}

# The runtime classpath of a jar under test (its Debian dependencies).
deps_for() {
  case "$(basename "$(readlink -f "$1")")" in
    commons-cli-*.jar | commons-codec-*.jar | commons-csv-*.jar | commons-io-*.jar | gson-*.jar) echo "" ;;
    *) echo "${CORPUS_CLASSPATH:-}" ;;
  esac
}

# run_generate BIN RUSAGE_FILE LOG_FILE GENERATE_ARGS...
# Runs `BIN generate GENERATE_ARGS...` under /usr/bin/time, which writes
# "wall user_cpu system_cpu max_rss_kib exit_status" to RUSAGE_FILE: CPU is
# that of the whole process tree (executor JVMs, javac and the JUnit
# validation runs included), max RSS that of its largest process. testgen is
# killed when its own resident set passes MEM_CAP_MIB; then RUSAGE_FILE's
# last line says so. Returns testgen's exit status.
run_generate() {
  local bin=$1 rusage=$2 log=$3
  shift 3
  rm -f "$rusage"
  /usr/bin/time -o "$rusage" -f '%e %U %S %M %x' "$bin" generate "$@" >"$log" 2>&1 &
  local timer=$! child="" rss over=""
  while kill -0 "$timer" 2>/dev/null; do
    [ -n "$child" ] || read -r child _ 2>/dev/null <"/proc/$timer/task/$timer/children"
    if [ -n "$child" ]; then
      rss=$(awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$child/status" 2>/dev/null)
      if [ -n "$rss" ] && [ "$rss" -gt "$MEM_CAP_MIB" ]; then
        over=$rss
        kill -KILL "$child" 2>/dev/null
      fi
    fi
    sleep 1
  done
  wait "$timer"
  local rc=$?
  if [ -n "$over" ]; then
    echo "killed: resident memory ${over} MiB above the cap of ${MEM_CAP_MIB} MiB (MEM_CAP_MIB)" | tee -a "$log" >>"$rusage"
    return 137
  fi
  # /usr/bin/time writes "Command exited with non-zero status N" first then.
  return "$rc"
}

# count_tests DIR: the generated sources under DIR/generated-tests. Sets
# test_files (array), test_classes, test_methods, test_assertions (lines
# that start with a JUnit assertion call); writes DIR/tests-per-class.txt
# ("<@Test methods> <file>" a line).
count_tests() {
  local dir=$1 f n
  mapfile -t test_files < <(find "$dir/generated-tests" -name '*.java' 2>/dev/null | sort)
  test_classes=${#test_files[@]}
  test_methods=0
  test_assertions=0
  : >"$dir/tests-per-class.txt"
  for f in "${test_files[@]}"; do
    n=$(grep -cE '^[[:space:]]*@Test\b' "$f")
    test_methods=$((test_methods + n))
    test_assertions=$((test_assertions + $(grep -cE '^[[:space:]]*(Assertions\.|Assert\.)?assert[A-Z][A-Za-z]*\(' "$f")))
    echo "$n ${f#"$dir"/generated-tests/}" >>"$dir/tests-per-class.txt"
  done
}

# compile_tests DIR CLASSPATH: javac over test_files (see count_tests) into
# DIR/test-classes, all files at once; when that fails, file by file so that
# one bad file neither hides the others' errors nor keeps the rest from
# running. Sets compile_errors, compile_warnings (javac's raw-type and
# unchecked warnings: generated code should have none) and bad_files
# (array); log: DIR/javac.log.
compile_tests() {
  local dir=$1 cp=$2 f
  local lint=(-Xlint:rawtypes,unchecked -Xmaxwarns 100000)
  compile_errors=0
  compile_warnings=0
  bad_files=()
  rm -rf "$dir/test-classes" && mkdir -p "$dir/test-classes"
  : >"$dir/javac.log"
  [ "${#test_files[@]}" -gt 0 ] || return 0
  if ! javac "${lint[@]}" -encoding UTF-8 -d "$dir/test-classes" -cp "$cp:$JUNIT" "${test_files[@]}" >"$dir/javac.log" 2>&1; then
    rm -rf "$dir/test-classes" && mkdir -p "$dir/test-classes"
    : >"$dir/javac.log"
    for f in "${test_files[@]}"; do
      if ! javac "${lint[@]}" -encoding UTF-8 -d "$dir/test-classes" -cp "$cp:$JUNIT" "$f" >>"$dir/javac.log" 2>&1; then
        bad_files+=("${f#"$dir"/generated-tests/}")
      fi
    done
    compile_errors=$(grep -cE '\.java:[0-9]+: error:' "$dir/javac.log")
    # A file javac refused without an "error:" line still counts.
    [ "$compile_errors" -gt 0 ] || compile_errors=${#bad_files[@]}
  fi
  compile_warnings=$(grep -cE '\.java:[0-9]+: warning: \[(rawtypes|unchecked)\]' "$dir/javac.log" || true)
}

# run_junit DIR CLASSPATH: runs the tests in DIR/test-classes with the JUnit 5
# console launcher under the JaCoCo agent (DIR/jacoco/jacoco.exec), with
# assertions enabled as Maven Surefire and Gradle run tests. Sets
# junit_rc, tests_found, tests_ok, tests_failed, tests_aborted,
# tests_skipped, junit_seconds; log: DIR/junit.log, XML: DIR/junit-reports/.
run_junit() {
  local dir=$1 cp=$2 t0
  rm -rf "$dir/jacoco" "$dir/junit-reports" && mkdir -p "$dir/jacoco"
  (cd "$dir/jacoco" && jar xf $JAVA_LIB/org.jacoco.agent.jar jacocoagent.jar)
  t0=$(date +%s.%N)
  java -ea -javaagent:"$dir/jacoco/jacocoagent.jar"=destfile="$dir/jacoco/jacoco.exec" \
    -jar $JAVA_LIB/junit-platform-console-standalone.jar \
    -cp "$dir/test-classes:$cp" --scan-classpath "$dir/test-classes" \
    --disable-banner --details=summary --details-theme=ascii \
    --reports-dir "$dir/junit-reports" >"$dir/junit.log" 2>&1
  junit_rc=$?
  junit_seconds=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  tests_found=$(junit_count "$dir" found)
  tests_ok=$(junit_count "$dir" successful)
  tests_failed=$(junit_count "$dir" failed)
  tests_aborted=$(junit_count "$dir" aborted)
  tests_skipped=$(junit_count "$dir" skipped)
}

junit_count() {
  sed -nE "s/^\[ *([0-9]+) tests $2 *\]$/\1/p" "$1/junit.log" | head -n 1
}

# print_junit_failures DIR: each failed test and the first lines of its
# exception, from the launcher's summary.
print_junit_failures() {
  # The summary's failure list: "JUnit Jupiter:<Class>:<method>" then "=> <exception>".
  awk '/^Failures \(/ { on = 1; next } on && /JUnit Jupiter:/ { print "  " $0; n = 0; next }
       on && /=>/ { print "    " $0; n = 1; next } on && n > 0 && n < 3 && /^ +(Caused by|=>)/ { print "    " $0; n++ }' \
    "$1/junit.log" | sed 's/^ *\(JUnit Jupiter\)/  \1/' | head -n 80
}

# measure_coverage DIR CLASSES...: JaCoCo line and branch coverage of the
# classes (directories or jars) from DIR/jacoco/jacoco.exec, one line per
# class then TOTAL, into DIR/coverage.txt. Sets cov_total (the TOTAL line).
measure_coverage() {
  local dir=$1
  shift
  cov_total="TOTAL lines -/- branches -/-"
  [ -f "$dir/jacoco/jacoco.exec" ] || return 1
  java -cp "$JACOCO" "$COVERAGE_TOOL" "$dir/jacoco/jacoco.exec" "$@" >"$dir/coverage.txt" 2>"$dir/coverage.err"
  cov_total=$(grep '^TOTAL ' "$dir/coverage.txt" || echo "TOTAL (Coverage failed: $(head -c 300 "$dir/coverage.err"))")
}
