#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job on the bundled example
# model, as examples/README.md walks through it: check, test and verify the example rules;
# rewrite tiny_cnn with the custom rule (examples/rules/my_fusion.rules) and the standard
# library (rules/std.rules); run the model before and after on the same input and compare;
# benchmark both; write the DOT pictures; print a short report. The results stay in out/demo/
# (GRAFT_DEMO_OUT overrides). After the build it takes a few seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/install_deps.sh
bash tools/build.sh "$root/build"
rewrite="$root/build/bin/rewrite"
model=examples/models/tiny_cnn/model.json
mine=examples/rules/my_fusion.rules
std=rules/std.rules
out=${GRAFT_DEMO_OUT:-out/demo}
mkdir -p "$out"
SECONDS=0

echo "== 1. check, test and verify the example rules"
"$rewrite" check examples/rules/fuse.rules examples/rules/add_to_mul.rules "$mine"
"$rewrite" test examples/rules/fuse.rules examples/rules/add_to_mul.rules "$mine"
# add_to_mul changes what a graph computes on purpose, so verify would rightly fail it.
"$rewrite" verify examples/rules/fuse.rules "$mine"
echo
echo "== 2. the bundled example: $model"
"$rewrite" print "$model"
echo
echo "== 3. rewrite --rules $mine --rules $std (--stats: the rules with candidates, and ours)"
"$rewrite" --rules "$mine" --rules "$std" "$model" -o "$out/model.json" --stats \
  --dot "$out/before.dot" --dot-after "$out/after.dot" 2>"$out/stats.txt"
awk 'NR == 1 || !/ms$/ || $2 > 0 || $1 == "hardswish_from_hardsigmoid"' "$out/stats.txt"
echo
echo "== 4. the rewritten graph"
"$rewrite" print "$out/model.json"
echo
echo "== 5. run both on the same random input (batch 2, seed 7)"
"$rewrite" run "$model" --batch 2 --seed 7 -o "$out/before.npz" | sed 's/^/before: /'
"$rewrite" run "$out/model.json" --batch 2 --seed 7 -o "$out/after.npz" | sed 's/^/after:  /'
echo
# One thread: a model this small gains nothing from two, and one is steady on a busy machine.
echo "== 6. benchmark both (batch 1, 1 thread, 50 runs)"
"$rewrite" bench "$model" --threads 1 --iters 50 | tee "$out/bench_before.txt"
"$rewrite" bench "$out/model.json" --threads 1 --iters 50 | tee "$out/bench_after.txt"
echo
echo "== report"
/usr/bin/python3 - "$model" "$out" "$SECONDS" <<'PY'
import collections, json, os, sys
import numpy as np

model, out, seconds = sys.argv[1], sys.argv[2], sys.argv[3]

def ops(path):
    with open(path) as f:
        nodes = json.load(f)["nodes"]
    return collections.Counter(n["target"] for n in nodes if n["op"] == "call_function"), len(nodes)

def applied(path):
    with open(path) as f:
        rows = [l.split() for l in f if l.rstrip().endswith("ms")]
    return {r[0]: int(r[3]) for r in rows}

def p50(path):
    with open(path) as f:
        return next(float(l.split()[2]) for l in f if l.startswith("latency"))

(ops_a, nodes_a), (ops_b, nodes_b) = ops(model), ops(os.path.join(out, "model.json"))
a, b = np.load(os.path.join(out, "before.npz")), np.load(os.path.join(out, "after.npz"))
worst = max(float(np.max(np.abs(a[k] - b[k]))) for k in a.files)
lat_a, lat_b = p50(os.path.join(out, "bench_before.txt")), p50(os.path.join(out, "bench_after.txt"))
rules = applied(os.path.join(out, "stats.txt"))
changed = [f"{op} {ops_a[op]} -> {ops_b[op]}" for op in sorted(set(ops_a) | set(ops_b))
           if ops_a[op] != ops_b[op]]
print(f"nodes:    {nodes_a} -> {nodes_b} ({sum(ops_a.values())} -> {sum(ops_b.values())} ops)")
print(f"rewrites: {', '.join(f'{r} {n}' for r, n in rules.items() if n)}; "
      f"hardswish_from_hardsigmoid {rules['hardswish_from_hardsigmoid']} (tiny_cnn has no h-swish)")
print(f"ops:      {', '.join(changed)}")
print(f"outputs:  max |before - after| = {worst:.3g} (batch 2, seed 7)")
print(f"latency:  p50 {lat_a:.3f} ms -> {lat_b:.3f} ms (x{lat_a / lat_b:.2f})")
print(f"pictures: {out}/before.dot, {out}/after.dot (dot -Tsvg FILE -o FILE.svg)")
print(f"time:     {seconds} s after the build")
sys.exit(0 if worst < 1e-4 else 1)
PY
