#!/usr/bin/env bash
# The benchmark: how good and how fast testgen is, in one command.
#
#   scripts/bench.sh [--quick] [--base COMMIT] [options]   (or: make bench, make bench-quick,
#                                                          make bench BASE=COMMIT)
#
# Builds testgen in release mode, then for each corpus
#   fixtures       fixtures/demo and fixtures/explore, compiled with javac
#   commons-cli    every public class of Debian's commons-cli 1.5.0
#   commons-codec  every public class of Debian's commons-codec 1.15
#   commons-csv    every public class of Debian's commons-csv 1.9.0
#   commons-io     a fixed sample of Debian's commons-io 2.11.0: the in-memory
#                  streams, readers and writers, file name and filter classes
#                  (sample_includes below; none that writes or deletes files)
#   gson           the public classes of Debian's gson 2.10 in com.google.gson
#                  and com.google.gson.stream (not its internal packages)
# runs `testgen generate` from scratch with a fixed seed, --max-runs and
# --budget (timed with /usr/bin/time), compiles the generated tests with javac,
# runs them with JUnit 5 under JaCoCo, then (the working tree's binary
# only) generates from scratch at a sixth and at half of --budget to show how
# fast coverage rises (testgen's own branch counts), then runs generate twice
# more with the same --cache and --out: unchanged, and after one class changed (see
# change_corpus below). testgen-bench (native/bench) reads it all, prints the
# tables and writes the figures to OUT/<label>/bench.json (and OUT/bench.json).
#
# With --base COMMIT, COMMIT is built in a git worktree (OUT/base-src, its own
# CARGO_TARGET_DIR OUT/base-target) and both binaries run alternately on each
# corpus (base then work on the 1st corpus, work then base on the 2nd, ...);
# the figures are printed side by side with the ratio work/base.
#
# Options:
#   --quick          fixtures/demo and a few jar classes, smaller limits (about 2 minutes)
#   --base COMMIT    compare with COMMIT (about twice the time)
#   --corpus NAME    only this corpus (repeatable): fixtures, commons-cli, commons-codec,
#                    commons-csv, commons-io, gson
#   --max-runs N --budget SECONDS --jobs N --seed N    testgen generate's options
#   --out DIR        where everything goes (default target/bench)
# Environment: CARGO_TARGET_DIR (where the working tree is built; default
# target/), TESTGEN (use this binary for the working tree instead of
# building it), MEM_CAP_MIB (see scripts/corpus-lib.sh).
#
# Exit status: non-zero when a generated test does not compile or fails, a
# testgen run fails or is killed, or a tool cannot be run.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/corpus-lib.sh
. "$ROOT/scripts/corpus-lib.sh"

QUICK=0
BASE=""
CORPORA=()
JOBS=2
SEED=0
MAX_RUNS=""
BUDGET=""
OUT=$ROOT/target/bench
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --base) BASE=$2; shift ;;
    --corpus) CORPORA+=("$2"); shift ;;
    --max-runs) MAX_RUNS=$2; shift ;;
    --budget) BUDGET=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    --seed) SEED=$2; shift ;;
    --out) OUT=$2; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
# The limits: --max-runs bounds exploring per method (and keeps it
# reproducible); --budget is the per-class safety net.
if [ "$QUICK" -eq 1 ]; then
  MAX_RUNS=${MAX_RUNS:-20} BUDGET=${BUDGET:-15}
else
  MAX_RUNS=${MAX_RUNS:-30} BUDGET=${BUDGET:-30}
fi
[ ${#CORPORA[@]} -gt 0 ] || CORPORA=(fixtures commons-cli commons-codec commons-csv commons-io gson)
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
WORK_TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
started=$(date +%s)

# ---------------------------------------------------------------- corpora

# In --quick mode, only these classes of each jar (the changed class among them).
quick_includes() {
  case "$1" in
    fixtures) echo "demo.*" ;;
    commons-cli) echo "org.apache.commons.cli.TypeHandler org.apache.commons.cli.PatternOptionBuilder" ;;
    commons-codec) echo "org.apache.commons.codec.binary.Hex" ;;
    commons-csv) echo "org.apache.commons.csv.CSVFormat\$Builder" ;;
    commons-io) echo "org.apache.commons.io.FilenameUtils" ;;
    gson) echo "com.google.gson.stream.JsonWriter" ;;
  esac
}

# The fixed sample of a large jar that the full benchmark generates for
# (nothing: the whole jar). commons-io's leaves out what touches the file
# system beyond reading (FileUtils, the file writers, the monitors).
sample_includes() {
  local io=org.apache.commons.io
  case "$1" in
    commons-io)
      echo "$io.FilenameUtils $io.IOCase $io.EndianUtils $io.HexDump $io.ByteOrderMark" \
        "$io.IOUtils $io.LineIterator $io.Charsets" \
        "$io.input.CharSequenceReader $io.input.CharSequenceInputStream $io.input.BoundedInputStream" \
        "$io.input.BoundedReader $io.input.BOMInputStream $io.input.CountingInputStream" \
        "$io.input.NullInputStream $io.input.NullReader $io.input.ReaderInputStream" \
        "$io.input.SequenceReader $io.input.UnixLineEndingInputStream" \
        "$io.input.WindowsLineEndingInputStream $io.input.TeeInputStream" \
        "$io.input.CharacterFilterReader $io.input.CharacterSetFilterReader" \
        "$io.output.StringBuilderWriter $io.output.ByteArrayOutputStream" \
        "$io.output.CountingOutputStream $io.output.TeeOutputStream $io.output.ChunkedWriter" \
        "$io.output.ChunkedOutputStream $io.output.WriterOutputStream $io.output.AppendableWriter" \
        "$io.output.NullWriter" \
        "$io.filefilter.WildcardFileFilter $io.filefilter.NameFileFilter" \
        "$io.filefilter.PrefixFileFilter $io.filefilter.SuffixFileFilter" \
        "$io.filefilter.RegexFileFilter $io.filefilter.AndFileFilter $io.filefilter.OrFileFilter" \
        "$io.filefilter.NotFileFilter $io.comparator.NameFileComparator" \
        "$io.comparator.ExtensionFileComparator"
      ;;
    gson) echo "com.google.gson.* com.google.gson.stream.*" ;;
  esac
}

# prepare_corpus NAME DIR: puts the input under DIR/input; sets INPUT (a
# classes directory or a jar) and DEPS.
prepare_corpus() {
  local name=$1 dir=$2
  rm -rf "$dir" && mkdir -p "$dir/input"
  DEPS=""
  case "$name" in
    fixtures)
      INPUT=$dir/input/classes
      mkdir -p "$INPUT"
      # shellcheck disable=SC2046
      javac --release 17 -g -encoding UTF-8 -d "$INPUT" \
        $(find "$ROOT/fixtures/demo/src" "$ROOT/fixtures/explore/src" -name '*.java' | sort) || return 1
      ;;
    commons-* | gson)
      local jar=$JAVA_LIB/$name.jar
      [ -f "$jar" ] || { echo "bench: $jar is missing (make setup installs it)"; return 1; }
      INPUT=$dir/input/$(basename "$(readlink -f "$jar")")
      cp "$(readlink -f "$jar")" "$INPUT"
      DEPS=$(deps_for "$jar")
      ;;
    *) echo "bench: unknown corpus $name"; return 1 ;;
  esac
}

# What change_corpus changes, per corpus.
change_description() {
  case "$1" in
    fixtures) echo "demo.Thermostat.setTargetTenths: the upper bound 300 became 350 (source edited, the class recompiled with javac)" ;;
    commons-cli) echo "org.apache.commons.cli.TypeHandler: the message \"Unable to find the class: \" (createClass) became \"Unable to load the class: \" (constant edited in the class file)" ;;
    commons-codec) echo "org.apache.commons.codec.binary.Hex: the message \"Odd number of characters.\" (decodeHex) became \"Odd number of hex digits.\" (constant edited in the class file)" ;;
    commons-csv) echo "org.apache.commons.csv.CSVFormat\$Builder: the message \"The delimiter cannot be a line break\" (setDelimiter) became \"The separator cannot be a line break\" (constant edited in the class file)" ;;
    commons-io) echo "org.apache.commons.io.FilenameUtils: the message \"Null byte present in file/path name...\" (requireNonNullChars) became \"Zero byte present...\" (constant edited in the class file)" ;;
    gson) echo "com.google.gson.stream.JsonWriter: the message \"JsonWriter is closed.\" became \"JsonWriter is closed!\" (constant edited in the class file)" ;;
  esac
}

# edit_jar_constant JAR CLASS_ENTRY FROM TO: replaces the CONSTANT_Utf8 FROM
# by TO (same length) in one class of JAR; fails unless exactly one changed.
edit_jar_constant() {
  local jar=$1 entry=$2 from=$3 to=$4 tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && jar xf "$jar" "$entry") || return 1
  FROM=$from TO=$to perl -0777 -pi -e '
    my ($f, $t) = ($ENV{FROM}, $ENV{TO});
    die "lengths differ\n" if length $f != length $t;
    my $tag = "\x01" . pack("n", length $f);
    my $n = s/\Q$tag$f\E/$tag$t/g;
    die "found $n times\n" if $n != 1;' "$tmp/$entry" || { rm -rf "$tmp"; return 1; }
  (cd "$tmp" && jar uf "$jar" "$entry")
  local rc=$?
  rm -rf "$tmp"
  return $rc
}

# change_corpus NAME DIR: changes one class of DIR/input (change_description says which).
change_corpus() {
  local name=$1 dir=$2
  case "$name" in
    fixtures)
      local src=$dir/input/src/demo/Thermostat.java
      mkdir -p "$(dirname "$src")"
      sed 's/targetTenths > 300/targetTenths > 350/' "$ROOT/fixtures/demo/src/demo/Thermostat.java" >"$src"
      grep -q 'targetTenths > 350' "$src" || { echo "bench: the Thermostat edit did not apply"; return 1; }
      javac --release 17 -g -encoding UTF-8 -cp "$dir/input/classes" -d "$dir/input/classes" "$src"
      ;;
    commons-cli) edit_jar_constant "$INPUT" org/apache/commons/cli/TypeHandler.class \
      "Unable to find the class: " "Unable to load the class: " ;;
    commons-codec) edit_jar_constant "$INPUT" org/apache/commons/codec/binary/Hex.class \
      "Odd number of characters." "Odd number of hex digits." ;;
    commons-csv) edit_jar_constant "$INPUT" 'org/apache/commons/csv/CSVFormat$Builder.class' \
      "The delimiter cannot be a line break" "The separator cannot be a line break" ;;
    commons-io)
      local message="byte present in file/path name. There are no known legitimate use cases for such data, but several injection attacks may use it"
      edit_jar_constant "$INPUT" org/apache/commons/io/FilenameUtils.class "Null $message" "Zero $message" ;;
    gson) edit_jar_constant "$INPUT" com/google/gson/stream/JsonWriter.class \
      "JsonWriter is closed." "JsonWriter is closed!" ;;
  esac
}

# ---------------------------------------------------------------- one run

# generate_phase BIN DIR PHASE: `testgen generate` on DIR's input into
# DIR/generated-tests (cache DIR/cache), report and timings in DIR/PHASE/.
generate_phase() {
  local bin=$1 dir=$2 phase=$3 rc
  mkdir -p "$dir/$phase"
  run_generate "$bin" "$dir/$phase/rusage.txt" "$dir/$phase/generate.log" \
    --classes "$INPUT" --classpath "$DEPS" --out "$dir/generated-tests" --cache "$dir/cache" \
    --report "$dir/$phase/report" "${GENERATE_OPTS[@]}"
  rc=$?
  echo "$rc" >"$dir/$phase/exit"
  printf '  %-9s %s (exit %s; %s)\n' "$phase" "$(tail -n 1 "$dir/$phase/generate.log")" "$rc" \
    "$(tail -n 1 "$dir/$phase/rusage.txt" | awk 'NF == 5 { printf "%.1f s wall, %.1f s CPU", $1, $2 + $3; next } { print }')"
  return "$rc"
}

# rise_phases BIN DIR: how fast coverage rises with the time a class gets:
# the same generation from scratch at a sixth and at half of --budget
# (testgen's own probe counts; the full run is the point at --budget), in
# DIR/rise-SECONDS/ with a cache and tests of their own.
rise_phases() {
  local bin=$1 dir=$2 seconds phase
  for seconds in $(awk -v budget="$BUDGET" 'BEGIN { printf "%d %d", budget / 6, budget / 2 }'); do
    [ "$seconds" -gt 0 ] || continue
    phase=rise-$seconds
    mkdir -p "$dir/$phase"
    run_generate "$bin" "$dir/$phase/rusage.txt" "$dir/$phase/generate.log" \
      --classes "$INPUT" --classpath "$DEPS" --out "$dir/$phase/generated-tests" --cache "$dir/$phase/cache" \
      --report "$dir/$phase/report" --mode full --jobs "$JOBS" --seed "$SEED" --max-runs "$MAX_RUNS" \
      --budget "$seconds" "${INCLUDE_OPTS[@]}"
    echo "$?" >"$dir/$phase/exit"
    printf '  %-9s %s\n' "$phase" "$(tail -n 1 "$dir/$phase/generate.log")"
  done
}

# bench_corpus BIN NAME DIR LABEL: the full run, its tests under
# javac/JUnit/JaCoCo, the coverage rise (work side only: it costs two more
# generations), then the two incremental re-runs.
bench_corpus() {
  local bin=$1 name=$2 dir=$3 label=$4
  echo "== $name: $("$bin" --version 2>/dev/null) ($bin) -> $dir"
  prepare_corpus "$name" "$dir" || { echo "bench: could not prepare $name"; return 1; }
  GENERATE_OPTS=(--mode incremental --jobs "$JOBS" --seed "$SEED" --max-runs "$MAX_RUNS" --budget "$BUDGET")
  INCLUDE_OPTS=()
  local include includes extra=""
  if [ "$QUICK" -eq 1 ]; then
    read -ra includes <<<"$(quick_includes "$name")"
  else
    read -ra includes <<<"$(sample_includes "$name")"
  fi
  if [ ${#includes[@]} -gt 0 ]; then
    for include in "${includes[@]}"; do
      GENERATE_OPTS+=(--include "$include")
      INCLUDE_OPTS+=(--include "$include")
      extra="$extra --include $include"
    done
  fi
  {
    echo "name=$name"
    echo "input=$INPUT"
    echo "options=${extra# }"
    echo "changed=$(change_description "$name")"
  } >"$dir/corpus.env"

  generate_phase "$bin" "$dir" full
  if [ -f "$dir/full/report/testgen-report.json" ]; then
    count_tests "$dir"
    compile_tests "$dir" "$INPUT${DEPS:+:$DEPS}"
    tests_found="" tests_ok="" tests_failed="" tests_aborted="" tests_skipped="" junit_rc=0 junit_seconds=0
    if [ "$test_classes" -gt 0 ]; then
      run_junit "$dir" "$INPUT${DEPS:+:$DEPS}"
      measure_coverage "$dir" "$INPUT"
    fi
    {
      for v in test_classes test_methods test_assertions compile_errors compile_warnings tests_found tests_ok tests_failed tests_aborted tests_skipped junit_rc junit_seconds; do
        echo "$v=${!v}"
      done
    } >"$dir/check.env"
    printf '  %-9s %s test classes, %s tests, %s javac errors, %s warnings; JUnit: %s found, %s failed, %s aborted (%s s); JaCoCo %s\n' \
      check "$test_classes" "$test_methods" "$compile_errors" "$compile_warnings" "${tests_found:--}" "${tests_failed:--}" \
      "${tests_aborted:--}" "$junit_seconds" "${cov_total#TOTAL }"
    if [ "$compile_errors" -gt 0 ]; then
      grep -E '\.java:[0-9]+: error:' "$dir/javac.log" | head -n 20
    fi
    if [ "${tests_failed:-0}" != 0 ] || [ "${tests_aborted:-0}" != 0 ]; then
      print_junit_failures "$dir"
    fi
  fi

  [ "$label" != work ] || rise_phases "$bin" "$dir"

  generate_phase "$bin" "$dir" unchanged
  if change_corpus "$name" "$dir"; then
    generate_phase "$bin" "$dir" changed
  else
    echo "bench: could not change a class of $name; no changed re-run"
  fi
}

# write_run_env LABEL BIN COMMIT DIRTY RUN_DIR
write_run_env() {
  local label=$1 bin=$2 commit=$3 dirty=$4 run=$5
  mkdir -p "$run"
  {
    echo "label=$label"
    echo "commit=$commit"
    echo "dirty=$dirty"
    echo "testgen=$("$bin" --version 2>/dev/null || echo '?')"
    echo "cores=$(nproc)"
    echo "memory_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
    echo "jdk=$(java -version 2>&1 | head -n 1 | tr -d '"')"
    echo "kernel=$(uname -sr)"
    echo "load_average=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "started=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "option_seed=$SEED"
    echo "option_max_runs=$MAX_RUNS"
    echo "option_budget=$BUDGET"
    echo "option_jobs=$JOBS"
    echo "option_quick=$([ "$QUICK" -eq 1 ] && echo yes || echo no)"
  } >"$run/run.env"
  : >"$run/corpora.txt"
}

# ---------------------------------------------------------------- build

echo "== build (release): testgen and testgen-bench -> $WORK_TARGET"
build=(-p testgen_bench)
[ -n "${TESTGEN:-}" ] || build+=(-p testgen_cli)
(cd "$ROOT" && CARGO_TARGET_DIR=$WORK_TARGET cargo build --release --locked "${build[@]}") || exit 1
BENCH_TOOL=$WORK_TARGET/release/testgen-bench
WORK_BIN=${TESTGEN:-$WORK_TARGET/release/testgen}
work_commit=$(git -C "$ROOT" rev-parse --short=12 HEAD)
work_dirty=no
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no -- . ':!target')" ] || work_dirty=yes

labels=(work)
declare -A BIN_OF RUN_OF
BIN_OF[work]=$WORK_BIN
RUN_OF[work]=$OUT/work
write_run_env work "$WORK_BIN" "$work_commit" "$work_dirty" "$OUT/work"

if [ -n "$BASE" ]; then
  base_commit=$(git -C "$ROOT" rev-parse --short=12 "$BASE^{commit}") || exit 2
  base_tree=$OUT/base-src
  if [ "$(git -C "$base_tree" rev-parse --short=12 HEAD 2>/dev/null)" != "$base_commit" ]; then
    git -C "$ROOT" worktree remove --force "$base_tree" 2>/dev/null
    rm -rf "$base_tree"
    git -C "$ROOT" worktree add --detach "$base_tree" "$base_commit" >/dev/null || exit 1
  fi
  echo "== build (release): base $base_commit in $base_tree -> $OUT/base-target"
  (cd "$base_tree" && CARGO_TARGET_DIR=$OUT/base-target cargo build --release --locked -p testgen_cli) || exit 1
  labels=(base work)
  BIN_OF[base]=$OUT/base-target/release/testgen
  RUN_OF[base]=$OUT/base
  write_run_env base "${BIN_OF[base]}" "$base_commit" no "$OUT/base"
fi

# ---------------------------------------------------------------- run

i=0
for name in "${CORPORA[@]}"; do
  order=("${labels[@]}")
  # Alternate who goes first, so neither side always runs on a cooler machine.
  if [ ${#labels[@]} -eq 2 ] && [ $((i % 2)) -eq 1 ]; then order=(work base); fi
  for label in "${order[@]}"; do
    bench_corpus "${BIN_OF[$label]}" "$name" "${RUN_OF[$label]}/$name" "$label"
    echo "$name" >>"${RUN_OF[$label]}/corpora.txt"
  done
  i=$((i + 1))
done

# ---------------------------------------------------------------- figures

status=0
for label in "${labels[@]}"; do
  echo "bench_seconds=$(($(date +%s) - started))" >>"${RUN_OF[$label]}/run.env"
  echo
  "$BENCH_TOOL" report "${RUN_OF[$label]}" >"${RUN_OF[$label]}/bench.txt"
  rc=$?
  [ $rc -eq 0 ] || status=1
  [ -n "$BASE" ] || cat "${RUN_OF[$label]}/bench.txt"
done
if [ -n "$BASE" ]; then
  echo "== base ${BIN_OF[base]} vs work $WORK_BIN (tables of each: $OUT/base/bench.txt, $OUT/work/bench.txt)"
  "$BENCH_TOOL" compare "$OUT/base" "$OUT/work" --json "$OUT/compare.json" || status=1
else
  cp "$OUT/work/bench.json" "$OUT/bench.json"
fi
echo "bench: $(($(date +%s) - started)) s in all"
exit "$status"
