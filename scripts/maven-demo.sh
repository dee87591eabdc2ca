#!/usr/bin/env bash
# The Maven half of `make demo`: builds the testgen Maven plugin offline (after the code it
# shares with the Gradle plugin, plugin-common, which it depends on), copies the
# multi-module sample fixtures/plugin-projects/maven-multi (no generated tests yet) to a
# scratch directory, runs `mvn test` there with the given testgen binary, and prints the
# generated test files and surefire's summary per module.
#
#   scripts/maven-demo.sh TESTGEN_BINARY SCRATCH_DIR
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 TESTGEN_BINARY SCRATCH_DIR" >&2
  exit 2
fi
binary=$(realpath "$1")
scratch=$2
root=$(cd "$(dirname "$0")/.." && pwd)

rm -rf "$scratch" && mkdir -p "$scratch"
scratch=$(realpath "$scratch")
bash "$root/scripts/maven-offline-settings.sh" "$scratch/settings.xml" "$scratch/m2"
mvn=(mvn -B -q --no-transfer-progress -s "$scratch/settings.xml")

echo "== mvn install: plugin-common, then the testgen Maven plugin (offline, Debian's Maven repository)"
for project in plugin-common maven-plugin; do
  cp -r "$root/$project" "$scratch/$project"
  rm -rf "$scratch/$project/target"
  (cd "$scratch/$project" && "${mvn[@]}" install)
done

sample=$scratch/maven-multi
cp -r "$root/fixtures/plugin-projects/maven-multi" "$sample"
rm -rf "$sample"/*/target
echo "== $sample before the build: hand-written tests only"
(cd "$sample" && find . -path '*/src/test/*' -name '*.java' | sort)

echo "== mvn test (testgen on the generate-test-sources phase of every module)"
(cd "$sample" && "${mvn[@]}" -Dtestgen.binary="$binary" test)

echo "== the generated tests"
(cd "$sample" && find . -path '*/generated-test-sources/testgen/*' -name '*.java' | sort | xargs wc -l)
echo "== surefire, per module"
for module in "$sample"/*/; do
  [ -d "$module/target/surefire-reports" ] || continue
  echo "$(basename "$module"):"
  # One line per test class from the JUnit XML reports: tests, failures, errors.
  for report in "$module"/target/surefire-reports/TEST-*.xml; do
    sed -n 's/.*<testsuite[^>]* name="\([^"]*\)"[^>]* tests="\([0-9]*\)"[^>]* errors="\([0-9]*\)"[^>]* failures="\([0-9]*\)".*/  \1: \2 tests, \4 failures, \3 errors/p' "$report" | head -1
  done
done
