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
    a_weights=$(ls "$tmp" | grep -E '^a\.[0-9a-f]{16}\.safetensors$') || fail "no weights written"
    cmp -s "$tmp/$a_weights" "$tmp/b.${a_weights#a.}" || fail "weights differ after a round trip"
    diff <(sed 's/"a\./"X./' "$tmp/a.json") <(sed 's/"b\./"X./' "$tmp/b.json") \
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
  binding-budget)
    # A candidate that runs out of binding steps: a tree of 31 adds over 32 variables whose
    # `where` reads every variable and fails, so no failure leaves an operand order out. The
    # rule is skipped there with a warning naming it and the node; the run goes on (exit 0).
    python3 - "$tmp" <<'PY'
import json, sys
xs = [f"x{i}" for i in range(32)]
level, nodes, names = list(xs), [], [f"p{i}" for i in range(32)]
for n in names:
    nodes.append({"name": n, "op": "placeholder", "target": n, "meta": {"dtype": "float32", "shape": [2, 3]}})
while len(level) > 1:
    level = [f"add({level[i]}, {level[i + 1]})" for i in range(0, len(level), 2)]
    next_names = []
    for i in range(0, len(names), 2):
        t = f"t{sum(1 for n in nodes if n['op'] == 'call_function')}"
        nodes.append({"name": t, "op": "call_function", "target": "add",
                      "args": [{"node": names[i]}, {"node": names[i + 1]}]})
        next_names.append(t)
    names = next_names
nodes.append({"name": "output", "op": "output", "args": [[{"node": names[0]}]]})
where = ", ".join(f"rank({x}) == 2" for x in xs[:-1]) + ", rank(x31) == 3"
with open(sys.argv[1] + "/sum.rules", "w") as f:
    f.write(f"rule every_rank {{ pattern({', '.join(xs)}) {{ return {level[0]} }} "
            f"where {where} replacement {{ return relu(x0) }} }}\n")
with open(sys.argv[1] + "/sum.json", "w") as f:
    json.dump({"format": "graft.model", "version": 1, "nodes": nodes}, f)
PY
    run=("$rewrite" --rules "$tmp/sum.rules" "$tmp/sum.json")
    expect 0 "warning: rule every_rank (" -- "${run[@]}" -o "$tmp/out.json"
    expect 0 "): skipped at node 't30': no match found or ruled out within 100000 binding steps" \
      -- "${run[@]}" --dry-run
    [ "$("${run[@]}" --dry-run 2>&1 | grep -c warning)" = 1 ] || fail "not one warning"
    "$rewrite" print "$tmp/out.json" | grep -q "call_function  t30" || fail "the model was not written"
    expect 0 "every_rank@t30: no match: gave up after 100000 binding steps" \
      -- "${run[@]}" --explain every_rank@t30
    ;;
  *) fail "unknown case" ;;
esac
echo "ok ($case_name)"
