#!/usr/bin/env bash
# Records the runs of the replay tests (native/symbolic/tests/replay_recorded.rs,
# fixtures/replay) on a real executor, then writes the expected replays anew.
# Needed when the instrumentation's probe numbering, the input templates or
# Exploration's serialised form change; review the diff of the expected
# steps like code.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# Methods whose paths between them use most of the machine: integer and
# floating-point arithmetic, strings and the JDK models, arrays and their
# exceptions, switches, loops, object fields and calls.
methods=(
  "fixtures.explore.IntRules.shippingCost(II)I"
  "fixtures.explore.IntRules.splitBill(II)I"
  "fixtures.explore.TextRules.greeting(Ljava/lang/String;)Ljava/lang/String;"
  "fixtures.explore.TextRules.cut(Ljava/lang/String;I)Ljava/lang/String;"
  "fixtures.explore.JdkRules.parsePort(Ljava/lang/String;)I"
  "fixtures.explore.ArrayRules.elementAt([III)I"
  "fixtures.explore.ArrayRules.fillBlanks([Ljava/lang/Object;Ljava/lang/String;)I"
  "fixtures.explore.SwitchRules.dayName(I)Ljava/lang/String;"
  "fixtures.explore.SwitchRules.outdoorSeason(Lfixtures/explore/Season;)Z"
  "fixtures.explore.FloatRules.kind(D)Ljava/lang/String;"
  "fixtures.explore.LoopRules.gcd(II)I"
  "fixtures.explore.CoinBox.vend()Z"
)
cargo run --quiet --release --manifest-path "$root/Cargo.toml" -p testgen_symbolic \
  --example record_replays -- "$root/fixtures/replay" explore "${methods[@]}"
TESTGEN_UPDATE_SNAPSHOTS=1 cargo test --quiet --manifest-path "$root/Cargo.toml" \
  -p testgen_symbolic --test replay_recorded
echo "recorded; review: git diff -- fixtures/replay"
