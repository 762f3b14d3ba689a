#!/usr/bin/env bash
# End-to-end checks of the `rewrite` command line: exit codes (0 ok, 1 input rejected, 2 usage,
# 3 internal), messages on stderr, and that a rejected run writes nothing.
#   cli_test.sh REWRITE_BINARY SOURCE_DIR CASE
set -uo pipefail
rewrite=$1
src=$2
case_name=$3
example="$src/examples/models/tiny_cnn/model.json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL ($case_name): $*"; exit 1; }
# expect CODE PATTERN -- command...: runs the command, checks exit code and that stdout+stderr
# contains PATTERN (a fixed string; "" for any).
expect() {
  local code=$1 pattern=$2
  shift 3
  local out
  out=$("$@" 2>&1)
  local got=$?
  [ "$got" = "$code" ] || fail "exit $got, expected $code: $*"$'\n'"$out"
  if [ -n "$pattern" ] && ! grep -qF -- "$pattern" <<<"$out"; then
    fail "output lacks '$pattern': $*"$'\n'"$out"
  fi
}

case "$case_name" in
  print)
    expect 0 "call_function  stem_conv" -- "$rewrite" print "$example"
    expect 0 "float32[N, 10]" -- "$rewrite" print "$example"
    ;;
  dot)
    expect 0 "digraph" -- "$rewrite" dot "$example"
    expect 0 "" -- "$rewrite" dot "$example" -o "$tmp/g.dot"
    grep -q "stem_conv" "$tmp/g.dot" || fail "g.dot lacks the graph"
    ;;
  version-help)
    expect 0 "rewrite (graft)" -- "$rewrite" --version
    expect 0 "Exit codes" -- "$rewrite" --help
    expect 2 "" -- "$rewrite" --no-such-flag
    expect 2 "Usage" -- "$rewrite"
    expect 2 "" -- "$rewrite" print
    ;;
  save-roundtrip)
    expect 0 "wrote" -- "$rewrite" "$example" -o "$tmp/a.json"
    expect 0 "wrote" -- "$rewrite" "$tmp/a.json" -o "$tmp/b.json"
    # Weights files are named after their contents: the same weights, the same hash.
    a_weights=$(ls "$tmp" | grep -E '^a\.json\.[0-9a-f]{16}\.safetensors$') || fail "no weights written"
    cmp -s "$tmp/$a_weights" "$tmp/b.json.${a_weights#a.json.}" || fail "weights differ after a round trip"
    diff <(sed 's/"a\.json\./"X./' "$tmp/a.json") <(sed 's/"b\.json\./"X./' "$tmp/b.json") \
      || fail "model.json differs after a round trip"
    ;;
  never-overwrites-input)
    cp "$example" "$tmp/m.json"
    cp "${example%.json}.safetensors" "$tmp/model.safetensors"
    before=$(md5sum < "$tmp/m.json")
    expect 2 "is the input model" -- "$rewrite" "$tmp/m.json" -o "$tmp/m.json"
    expect 2 "give -o" -- "$rewrite" "$tmp/m.json"
    [ "$(md5sum < "$tmp/m.json")" = "$before" ] || fail "the input was modified"
    expect 0 "wrote" -- "$rewrite" "$tmp/m.json" --in-place
    ;;
  rejected-writes-nothing)
    printf '{"format": "graft.model", "version": 1, "nodes": [}' > "$tmp/bad.json"
    echo "old" > "$tmp/out.json"
    expect 1 "bad.json:1:" -- "$rewrite" "$tmp/bad.json" -o "$tmp/out.json"
    [ "$(cat "$tmp/out.json")" = "old" ] || fail "a rejected run replaced the output"
    ls "$tmp" | grep -q safetensors && fail "a rejected run wrote weights"
    echo "a file" > "$tmp/blocker"
    expect 1 "cannot create the directory" -- "$rewrite" "$example" -o "$tmp/blocker/dir/o.json"
    expect 0 "wrote" -- "$rewrite" "$example" -o "$tmp/new/dir/o.json"
    ls "$tmp/new/dir" | grep -q '^o\..*\.safetensors$' || fail "-o into a new directory wrote no weights"
    ls -a "$tmp" | grep -q '\.tmp\.' && fail "left a temporary file"
    expect 1 "cannot open" -- "$rewrite" print "$tmp/missing.json"
    expect 1 "unknown op 'rellu' (did you mean 'relu'?)" -- "$rewrite" print "$src/tests/cli/data/unknown_op.json"
    ;;
  rules)
    rules="$src/examples/rules/fuse.rules"
    expect 0 "5 rewrites, 42 -> 25 nodes" -- "$rewrite" --rules "$rules" "$example" -o "$tmp/f.json"
    "$rewrite" print "$tmp/f.json" | grep -q batch_norm && fail "batch_norm left after folding"
    expect 0 "fuse_conv_bn at stem_bn" -- "$rewrite" --rules "$rules" "$example" --dry-run
    [ ! -e "$tmp/none.json" ] || fail "dry run wrote"
    expect 0 "fuse_conv_bn                          4        4        4" -- \
      "$rewrite" --rules "$rules" "$example" -o "$tmp/g.json" --stats
    expect 0 "fuse_conv_bn@stem_bn: matches" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@stem_bn
    expect 0 "no match:" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@stem_relu
    expect 1 "no node named 'stem_bnn'" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@stem_bnn
    expect 2 "RULE@NODE" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn
    expect 0 "" -- "$rewrite" --rules "$rules" "$example" -o "$tmp/h.json" --dot "$tmp/b.dot" --dot-after "$tmp/a.dot"
    grep -q "batch_norm" "$tmp/b.dot" || fail "before.dot lacks batch_norm"
    grep -q "legend" "$tmp/a.dot" || fail "after.dot highlights nothing"
    a=$("$rewrite" run "$example" --batch 2 --seed 5)
    b=$("$rewrite" run "$tmp/f.json" --batch 2 --seed 5)
    [ "$a" = "$b" ] || fail "outputs differ after folding: $a vs $b"
    printf 'rule r { pattern(x) { return rellu(x) } replacement { return x } }\n' > "$tmp/bad.rules"
    expect 1 "bad.rules:1:30: error: unknown op 'rellu'" -- "$rewrite" --rules "$tmp/bad.rules" "$example" -o "$tmp/i.json"
    [ ! -e "$tmp/i.json" ] || fail "rejected rules still wrote a model"
    ;;
  check-odd-files)
    # Files a user may hand `rewrite check` by mistake or from another editor.
    mkdir "$tmp/dir.rules"
    expect 1 "is a directory, not a rule file" -- "$rewrite" check "$tmp/dir.rules"
    expect 1 "cannot open" -- "$rewrite" check "$tmp/missing.rules"
    : > "$tmp/empty.rules"
    expect 0 "0 rules, 0 phases, 0 tests" -- "$rewrite" check "$tmp/empty.rules"
    printf '\xef\xbb\xbfrule a { pattern(x) { return relu(x) } replacement { return x } }\n' > "$tmp/bom.rules"
    expect 0 "1 rule, 1 phase, 0 tests" -- "$rewrite" check "$tmp/bom.rules"
    printf 'import "self.rules"\n' > "$tmp/self.rules"
    expect 1 "self.rules:1:8: error: import cycle" -- "$rewrite" check "$tmp/self.rules"
    head -c 2000 /dev/urandom > "$tmp/garbage.rules"
    expect 1 "error" -- "$rewrite" check "$tmp/garbage.rules"
    python3 -c "print('rule r { pattern(x) { return ' + 'relu(' * 5000 + 'x' + ')' * 5000 + ' } replacement { return x } }')" > "$tmp/deep.rules"
    expect 1 "nested too deeply" -- "$rewrite" check "$tmp/deep.rules"
    ;;
  resource-limits)
    # Inputs too large for int64 arithmetic or for this machine: a message and exit 1.
    model_with_input() {
      printf '{"format": "graft.model", "version": 1, "nodes": [
        {"name": "x", "op": "placeholder", "target": "x", "meta": {"dtype": "float32", "shape": %s}},
        {"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "x"}]},
        {"name": "output", "op": "output", "args": [[{"node": "r"}]]}]}' "$1" > "$2"
    }
    model_with_input '[4611686018427387904, 4]' "$tmp/overflow.json"
    expect 1 "/nodes/0/meta/shape: error: float32[4611686018427387904, 4] would take more than 256 TiB" \
      -- "$rewrite" run "$tmp/overflow.json"
    model_with_input '[100000, 100000, 1000]' "$tmp/huge.json"
    expect 1 "cannot allocate 36.4 TiB for" -- "$rewrite" run "$tmp/huge.json"
    expect 1 "would take more than 256 TiB" -- "$rewrite" run "$example" --batch 100000000000
    python3 -c "print('{\"format\": \"graft.model\", \"version\": 1, \"nodes\": ' + '[' * 1000000 + ']' * 1000000 + '}')" > "$tmp/deep.json"
    expect 1 "deep.json:1:" -- "$rewrite" print "$tmp/deep.json"
    expect 1 "nested more than 256 levels deep" -- "$rewrite" print "$tmp/deep.json"
    printf '{' > "$tmp/big.json" && truncate -s 2G "$tmp/big.json"
    expect 1 "up to 1024 MiB" -- "$rewrite" print "$tmp/big.json"
    ;;
  other-models-files)
    # `rewrite m.json -o m.fused` removed m.json's weights: they looked like the output's own.
    rules="$src/rules/fold_bn.rules"
    expect 0 "wrote" -- "$rewrite" "$example" -o "$tmp/m.json"
    for out in m.fused m.json.out m; do
      expect 0 "wrote" -- "$rewrite" --rules "$rules" "$tmp/m.json" -o "$tmp/$out"
      expect 0 "wrote" -- "$rewrite" "$tmp/m.json" -o "$tmp/$out"  # replaces $out's weights
      expect 0 "stem_conv" -- "$rewrite" print "$tmp/m.json"
      expect 0 "stem_conv" -- "$rewrite" print "$tmp/$out"
    done
    [ "$(ls "$tmp" | grep -c safetensors)" = 4 ] || fail "expected one weights file per model: $(ls "$tmp")"
    ;;
  concurrent-writes)
    # Runs writing one -o at once take turns (the output's lock), so the survivor names
    # weights that exist and no run's weights are left over. Two outputs with different weights.
    fold="$src/rules/fold_bn.rules"
    for round in 1 2 3 4 5 6; do
      pids=() failed=0
      for run in 1 2 3; do
        "$rewrite" "$example" -o "$tmp/out/out.json" 2>/dev/null & pids+=($!)
        "$rewrite" --rules "$fold" "$example" -o "$tmp/out/out.json" 2>/dev/null & pids+=($!)
      done
      for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
      [ "$failed" = 0 ] || fail "a concurrent run failed (round $round)"
      expect 0 "float32[N, 10]" -- "$rewrite" print "$tmp/out/out.json"
      left=$(ls -A "$tmp/out" | grep -v '^out\.json$')
      [ "$(wc -l <<<"$left")" = 1 ] && grep -qF "\"$left\"" "$tmp/out/out.json" \
        || fail "round $round left more than the weights out.json names: $left"
    done
    ;;
  output-kinds)
    # Outputs are renamed into place: one that exists and is not a regular file is refused
    # (as root, -o /dev/null used to replace the device node with a regular file).
    mkfifo "$tmp/fifo"
    mkdir "$tmp/dir"
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/socket"
    echo "target" > "$tmp/file"
    ln -s "$tmp/file" "$tmp/link"
    kinds=("fifo:a FIFO" "dir:a directory" "socket:a socket" "link:a symbolic link")
    # A device node with /dev/null's numbers, where this user may make one.
    mknod "$tmp/null" c 1 3 2>/dev/null && kinds+=("null:a character device")
    for kind in "${kinds[@]}"; do
      out="$tmp/${kind%%:*}" what="${kind#*:}"
      expect 1 "cannot write '$out': it is $what" -- "$rewrite" "$example" -o "$out"
      expect 1 "cannot write '$out': it is $what" -- "$rewrite" dot "$example" -o "$out"
      expect 1 "cannot write '$out': it is $what" -- "$rewrite" run "$example" -o "$out"
      expect 1 "cannot write '$out': it is $what" -- "$rewrite" "$example" -o "$tmp/o.json" --dot-after "$out"
    done
    [ -p "$tmp/fifo" ] && [ -d "$tmp/dir" ] && [ -S "$tmp/socket" ] && [ -L "$tmp/link" ] \
      || fail "an output that is not a regular file was replaced"
    [ ! -e "$tmp/null" ] || [ -c "$tmp/null" ] || fail "the device node was replaced"
    [ "$(cat "$tmp/file")" = "target" ] || fail "the link's target was written"
    ls "$tmp" | grep -q safetensors && fail "a refused run wrote weights"
    ;;
  save-memory)
    # Weights are streamed to the file: saving 128 MiB of weights (a sparse file) takes little
    # more memory than loading the model does (it used to take twice the weights: a string
    # holding them all, and every page of the mapped weights file it had read).
    python3 - "$tmp/big" <<'PY'
import json, struct, sys
n, m = 4096, 8192
header = json.dumps({"w": {"dtype": "F32", "shape": [n, m], "data_offsets": [0, n * m * 4]}}).encode()
header += b" " * (-len(header) % 8)
with open(sys.argv[1] + ".safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header)
    f.truncate(8 + len(header) + n * m * 4)
nodes = [{"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": ["N", m], "dtype": "float32"}},
         {"name": "w", "op": "get_attr", "target": "w"},
         {"name": "y", "op": "call_function", "target": "linear", "args": [{"node": "x"}, {"node": "w"}]},
         {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]]}]
json.dump({"format": "graft.model", "version": 1, "weights": "big.safetensors", "nodes": nodes},
          open(sys.argv[1] + ".json", "w"))
PY
    peak_kib() {  # the peak resident memory of a command, in KiB
      python3 -c 'import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if code == 0 else "failed")' "$@"
    }
    load_kib=$(peak_kib "$rewrite" print "$tmp/big.json")
    save_kib=$(peak_kib "$rewrite" "$tmp/big.json" -o "$tmp/out/big.json")
    [ "$load_kib" != failed ] && [ "$save_kib" != failed ] || fail "the big model did not load or save"
    cmp -s <(tail -c 134217728 "$tmp/big.safetensors") <(tail -c 134217728 "$tmp/out/"big.json.*.safetensors) \
      || fail "the saved weights differ"
    [ $((save_kib - load_kib)) -lt 32768 ] \
      || fail "saving 128 MiB of weights took $(((save_kib - load_kib) / 1024)) MiB more than loading them"
    ;;
  unsaveable-values)
    # Values model.json or safetensors cannot hold are rejected at load, with their place.
    printf '{"format": "graft.model", "version": 1, "nodes": [
      {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2], "dtype": "int64"}},
      {"name": "a", "op": "call_function", "target": "add", "args": [{"node": "x"}, 18446744073709551615]},
      {"name": "output", "op": "output", "args": [[{"node": "a"}]]}]}' > "$tmp/big_scalar.json"
    expect 1 "big_scalar.json: /nodes/1/args/1: error: integer 18446744073709551615 does not fit in int64" \
      -- "$rewrite" "$tmp/big_scalar.json" -o "$tmp/out.json"
    tensors='"tensors": {"__metadata__": {"dtype": "float32", "shape": [2], "data": [1, 2]}}'
    printf '{"format": "graft.model", "version": 1, %s, "nodes": [
      {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2], "dtype": "float32"}},
      {"name": "c", "op": "get_attr", "target": "__metadata__"},
      {"name": "a", "op": "call_function", "target": "add", "args": [{"node": "x"}, {"node": "c"}]},
      {"name": "output", "op": "output", "args": [[{"node": "a"}]]}]}' "$tensors" > "$tmp/reserved.json"
    expect 1 "reserved.json: /tensors/__metadata__: error: a tensor cannot be named '__metadata__'" \
      -- "$rewrite" "$tmp/reserved.json" -o "$tmp/out.json"
    [ ! -e "$tmp/out.json" ] || fail "a rejected model was written"
    # A constant folded from a node named __metadata__ is stored under another name.
    tensors='"tensors": {"c": {"dtype": "float32", "shape": [2], "data": [1, 2]}}'
    printf '{"format": "graft.model", "version": 1, %s, "nodes": [
      {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2], "dtype": "float32"}},
      {"name": "c", "op": "get_attr", "target": "c"},
      {"name": "__metadata__", "op": "call_function", "target": "mul", "args": [{"node": "c"}, {"node": "c"}]},
      {"name": "a", "op": "call_function", "target": "add", "args": [{"node": "x"}, {"node": "__metadata__"}]},
      {"name": "output", "op": "output", "args": [[{"node": "a"}]]}]}' "$tensors" > "$tmp/folds.json"
    printf 'rule fold_mul {
      pattern(a, b) { return mul(a, b) }
      where const(a, b)
      replacement { return fold(a * b) }
    }\n' > "$tmp/fold.rules"
    expect 0 "1 rewrite" -- "$rewrite" --rules "$tmp/fold.rules" "$tmp/folds.json" -o "$tmp/folded.json"
    expect 0 "__metadata___1" -- "$rewrite" print "$tmp/folded.json"
    ;;
  *) fail "unknown case" ;;
esac
echo "ok ($case_name)"
