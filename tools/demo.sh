#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job on the bundled example
# model: load and verify it, print its graph, write it back out (canonical model.json +
# safetensors, atomically), check the copy runs to the same outputs, and print a short report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/install_deps.sh
bash tools/build.sh "$root/build"
rewrite="$root/build/bin/rewrite"
model="$root/examples/models/tiny_cnn/model.json"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== the bundled example: $model"
"$rewrite" print "$model"
echo
echo "== rewrite: load, verify, save"
"$rewrite" "$model" -o "$out/model.json"
echo
echo "== run the original and the rewritten model on the same random input (batch 2, seed 7)"
before=$("$rewrite" run "$model" --batch 2 --seed 7)
after=$("$rewrite" run "$out/model.json" --batch 2 --seed 7)
echo "before: $before"
echo "after:  $after"
echo
echo "== report"
nodes() { "$rewrite" print "$1" | awk 'NR > 2 {n++} END {print n}'; }
echo "nodes: $(nodes "$model") before, $(nodes "$out/model.json") after"
echo "weights: $(stat -c %s "${model%.json}.safetensors") bytes before, $(stat -c %s "$out/model.safetensors") bytes after"
if [ "$before" = "$after" ]; then echo "outputs: identical"; else echo "outputs: DIFFER"; exit 1; fi
