#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job on the bundled example
# model: load and verify it, print its graph, save it again and show that it round-trips.
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
