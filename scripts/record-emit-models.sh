#!/usr/bin/env bash
# Records the test models of the emitter's snapshot tests
# (native/emit/tests/snapshots.rs, fixtures/emit): generates tests for a few
# fixture classes with the release build, keeps each class's test model from
# the cache, then writes the expected Java anew. Run it after a change to
# TestClass's serialised form (with TEST_CLASS_FORMAT bumped), and review
# the expected files' diff like code.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Classes that between them show every kind of assertion the printer writes:
# objects and getters, floating point, exceptions and messages, strings,
# arrays, and a static reset.
classes=(
  fixtures.explore.Cart
  fixtures.explore.FloatRules
  fixtures.explore.ErrorRules
  fixtures.explore.TextRules
  fixtures.explore.ArrayRules
  fixtures.portable.Registry
)

cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p testgen_cli
mkdir -p "$work/classes"
javac -nowarn -d "$work/classes" \
  $(find "$root/fixtures/explore/src" "$root/fixtures/portable/src" -name '*.java')
includes=()
for class in "${classes[@]}"; do includes+=(--include "$class"); done
"$root/target/release/testgen" generate --classes "$work/classes" \
  --out "$work/out" --cache "$work/cache" --report "$work/report" \
  --seed 0 --max-runs 30 --jobs 2 "${includes[@]}"

rm -f "$root"/fixtures/emit/models/*.json
cargo run --quiet --manifest-path "$root/Cargo.toml" -p testgen_emit --example record_models -- \
  "$work/cache" "$root/fixtures/emit/models" "${classes[@]}"
TESTGEN_UPDATE_SNAPSHOTS=1 cargo test --quiet --manifest-path "$root/Cargo.toml" \
  -p testgen_emit --test snapshots
echo "recorded; review: git diff -- fixtures/emit"
