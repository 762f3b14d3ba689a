#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job on the bundled example
# model: apply the example fusion rules (conv-bn folding, dropout removal), run the model before
# and after on the same input, and print a short report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/install_deps.sh
bash tools/build.sh "$root/build"
rewrite="$root/build/bin/rewrite"
model="$root/examples/models/tiny_cnn/model.json"
rules="$root/examples/rules/fuse.rules"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== the bundled example: $model"
"$rewrite" print "$model"
echo
echo "== rewrite --rules $rules"
"$rewrite" --rules "$rules" "$model" -o "$out/model.json" --stats --dot "$out/before.dot" \
  --dot-after "$out/after.dot"
echo
echo "== the rewritten graph"
"$rewrite" print "$out/model.json"
echo
echo "== run the original and the rewritten model on the same random input (batch 2, seed 7)"
before=$("$rewrite" run "$model" --batch 2 --seed 7 -o "$out/before.npz")
after=$("$rewrite" run "$out/model.json" --batch 2 --seed 7 -o "$out/after.npz")
echo "before: $before"
echo "after:  $after"
echo
echo "== report"
count() { "$rewrite" print "$1" | awk -v op="$2" '$1 == "call_function" && $3 == op {n++} END {print n + 0}'; }
nodes() { "$rewrite" print "$1" | awk 'NR > 2 {n++} END {print n}'; }
echo "nodes:      $(nodes "$model") before, $(nodes "$out/model.json") after"
echo "batch_norm: $(count "$model" batch_norm) before, $(count "$out/model.json" batch_norm) after"
echo "dropout:    $(count "$model" dropout) before, $(count "$out/model.json" dropout) after"
/usr/bin/python3 - "$out/before.npz" "$out/after.npz" <<'PY'
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
worst = max(float(np.max(np.abs(a[k] - b[k]))) for k in a.files)
print(f"outputs:    max |before - after| = {worst:.3g}")
sys.exit(0 if worst < 1e-4 else 1)
PY
