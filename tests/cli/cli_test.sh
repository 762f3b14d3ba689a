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
  print-rules)
    rules="$src/examples/rules/fuse.rules"
    expect 0 "/// Fold inference batch-norm into the preceding convolution." -- "$rewrite" print --rules "$rules"
    expect 0 "fuse.rules:5, benefit 2, phase 'default' (fixpoint)" -- "$rewrite" print --rules "$rules"
    # The printed rules are valid .rules text that checks as the same rules.
    "$rewrite" print --rules "$rules" > "$tmp/printed.rules" || fail "print --rules failed"
    expect 0 "" -- "$rewrite" check "$tmp/printed.rules"
    [ "$("$rewrite" print --rules "$tmp/printed.rules" | grep -v '^#')" = \
      "$(grep -v '^#' "$tmp/printed.rules")" ] || fail "printing the printed rules changed them"
    printf 'rule r { pattern(x) { return rellu(x) } replacement { return x } }\n' > "$tmp/bad.rules"
    expect 1 "bad.rules:1:" -- "$rewrite" print --rules "$tmp/bad.rules"
    expect 2 "" -- "$rewrite" print --rules "$rules" "$example"
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
    # A misspelt flag or subcommand gets a suggestion.
    expect 2 "'--stast': did you mean '--stats'?" -- "$rewrite" --rules "$src/examples/rules/fuse.rules" "$example" --stast
    expect 2 "'--graph': did you mean '--graphs'?" -- "$rewrite" verify "$src/examples/rules/fuse.rules" --graph 3
    expect 2 "'tset' is not a file: did you mean the subcommand 'test'?" -- "$rewrite" tset "$src/examples/rules/fuse.rules"
    # The same when the words parse as a rewrite of a file that is not there.
    expect 1 "'prnt' is not a file: did you mean the subcommand 'print'?" -- "$rewrite" prnt -o "$tmp/prnt.json"
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
    # --only, --disable and --print-after.
    fuse="$src/examples/rules/fuse.rules"
    out=$("$rewrite" --rules "$fuse" "$example" --dry-run --only fuse_conv_bn 2>&1) || fail "--only failed: $out"
    grep -q "^fuse_conv_bn at " <<<"$out" || fail "--only fuse_conv_bn applied nothing: $out"
    ! grep -v "^fuse_conv_bn at \|rewrites\? (dry run" <<<"$out" | grep -q " at " || fail "--only let another rule run: $out"
    out=$("$rewrite" --rules "$fuse" "$example" --dry-run --disable fuse_conv_bn 2>&1) || fail "--disable failed: $out"
    ! grep -q "^fuse_conv_bn at " <<<"$out" || fail "--disable fuse_conv_bn still applied it: $out"
    expect 2 "--only: unknown rule 'fuse_conv_bm' (did you mean 'fuse_conv_bn'?)" -- \
      "$rewrite" --rules "$fuse" "$example" --dry-run --only fuse_conv_bm
    expect 0 "# after phase " -- "$rewrite" --rules "$fuse" "$example" --dry-run --print-after all
    expect 2 "--print-after: no phase 'nosuch'" -- "$rewrite" --rules "$fuse" "$example" --dry-run --print-after nosuch
    # A loose rule of a file given first runs after the phases of a file given later: warned.
    printf 'rule loose { pattern(x) { return neg(neg(x)) } replacement { return x } }\n' > "$tmp/first.rules"
    printf 'rule r { pattern(x) { return relu(relu(x)) } replacement { return relu(x) } }\nphase later fixpoint { r }\n' > "$tmp/second.rules"
    expect 0 "first.rules:1:6: warning: rule 'loose' is in no phase: it runs in the implicit 'default' phase, after phase 'later' of a file given after this one" -- \
      "$rewrite" check "$tmp/first.rules" "$tmp/second.rules"
    [ -z "$("$rewrite" check "$tmp/second.rules" "$tmp/first.rules" 2>&1 | grep warning)" ] \
      || fail "warned although the loose rule's file comes last"
    rules="$src/examples/rules/fuse.rules"
    expect 0 "5 rewrites, 42 -> 25 nodes" -- "$rewrite" --rules "$rules" "$example" -o "$tmp/f.json"
    "$rewrite" print "$tmp/f.json" | grep -q batch_norm && fail "batch_norm left after folding"
    expect 0 "fuse_conv_bn at stem_bn" -- "$rewrite" --rules "$rules" "$example" --dry-run
    [ ! -e "$tmp/none.json" ] || fail "dry run wrote"
    expect 0 "fuse_conv_bn                          4        4        4" -- \
      "$rewrite" --rules "$rules" "$example" -o "$tmp/g.json" --stats
    expect 0 "fuse_conv_bn@stem_bn in phase 'default': matches" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@stem_bn
    expect 0 "fuse_conv_bn@stem_bn: applied in phase 'default'" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@stem_bn
    expect 0 "fuse_conv_bn@stem_relu in phase 'default': no match:" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@stem_relu
    expect 0 "fuse_conv_bn@stem_relu: not applied" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@stem_relu
    # The explained rule's `///` doc comment follows the explanation, matched or not.
    for node in stem_bn stem_relu; do
      out=$("$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@$node)
      sed -n 3p <<<"$out" | grep -qxF "  /// Fold inference batch-norm into the preceding convolution." \
        || fail "--explain at $node does not show the rule's doc comment"
    done
    # A rule is explained on the graph its phase sees (after the fold, conv+relu matches where
    # the input has a batch_norm between them), and a node another rule took first is named.
    cat > "$tmp/phased.rules" <<EOF
import "$rules"
rule conv_relu {
  pattern(x, w, b?) { return relu(conv2d(x, w, b, stride=\$s, padding=\$p, dilation=\$d, groups=\$g)) }
  replacement { return conv2d_post(x, w, b, stride=\$s, padding=\$p, dilation=\$d, groups=\$g, activation="relu") }
}
rule relu_any {
  pattern(x) { return relu(x) }
  benefit 5
  replacement { return clamp(x, min=0.0) }
}
phase fold fixpoint { fuse_conv_bn }
phase fuse once { conv_relu, relu_any }
EOF
    out=$("$rewrite" --rules "$tmp/phased.rules" "$example" --explain conv_relu@stem_relu --allow-path "$src")
    grep -qF "conv_relu@stem_relu in phase 'fuse': matches" <<<"$out" \
      || fail "conv_relu is not explained on the graph after the fold: $out"
    grep -qF "conv_relu@stem_relu: not applied: relu_any (phase 'fuse') took 'stem_relu' first" <<<"$out" \
      || fail "--explain does not name the rule that took the node: $out"
    out=$("$rewrite" --rules "$tmp/phased.rules" "$example" --explain fuse_conv_bn@stem_bn --allow-path "$src")
    grep -qF "fuse_conv_bn@stem_bn: applied in phase 'fold'" <<<"$out" || fail "$out"
    # `name(v)` singles out a constant by its name (its state_dict name).
    printf '%s\n' 'rule bn_named {' \
      '  pattern(x, m, v, g, b) { return batch_norm(x, m, v, g, b, training=false, eps=$e) }' \
      '  where name(m) in {"none.such", "stem.bn.running_mean"}' \
      '  replacement { return batch_norm(x, m, v, g, b, training=false, eps=$e) * 1.0 }' \
      '}' 'phase named once { bn_named }' > "$tmp/named.rules"
    out=$("$rewrite" --rules "$tmp/named.rules" "$example" --dry-run 2>&1) || fail "$out"
    grep -q "^bn_named at stem_bn$" <<<"$out" || fail "name() did not single out stem.bn: $out"
    [ "$(grep -c "^bn_named at" <<<"$out")" = 1 ] || fail "name() matched other constants: $out"
    expect 1 "no node named 'stem_bnn'" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn@stem_bnn
    expect 2 "RULE@NODE" -- "$rewrite" --rules "$rules" "$example" --explain fuse_conv_bn
    expect 0 "" -- "$rewrite" --rules "$rules" "$example" -o "$tmp/h.json" --dot "$tmp/b.dot" --dot-after "$tmp/a.dot"
    grep -q "batch_norm" "$tmp/b.dot" || fail "before.dot lacks batch_norm"
    grep -q "legend" "$tmp/a.dot" || fail "after.dot highlights nothing"
    a=$("$rewrite" run "$example" --batch 2 --seed 5)
    b=$("$rewrite" run "$tmp/f.json" --batch 2 --seed 5)
    [ "$a" = "$b" ] || fail "outputs differ after folding: $a vs $b"
    # op_name: one rule fuses each activation into its conv, named after the op that matched.
    expect 0 "conv_activation                       3        3        3" -- \
      "$rewrite" --rules "$src/rules/std.rules" "$example" -o "$tmp/s.json" --stats
    expect 0 "{padding: [1, 1], activation: 'relu'}" -- "$rewrite" print "$tmp/s.json"
    expect 0 "activation is one of 'none', 'relu', " -- "$rewrite" ops -v
    printf 'rule r { pattern(x, w) { y = linear(x, w); a = relu(y); return a }\n  replacement { return linear_post(x, w, activation=op_name(a)) } }\n' > "$tmp/one_op.rules"
    expect 1 "one_op.rules:2:61: error: 'a' always matches 'relu'" -- "$rewrite" check "$tmp/one_op.rules"
    printf 'rule r { pattern(x) { return rellu(x) } replacement { return x } }\n' > "$tmp/bad.rules"
    expect 1 "bad.rules:1:30: error: unknown op 'rellu'" -- "$rewrite" --rules "$tmp/bad.rules" "$example" -o "$tmp/i.json"
    [ ! -e "$tmp/i.json" ] || fail "rejected rules still wrote a model"
    ;;
  check-dump)
    # --dump: the lowered rules and the compiled matcher's tables, on stdout; nothing on stdout
    # when the rules are rejected, also by lowering.
    printf 'rule conv_act { pattern(x, w, b?) { c = conv2d(x, w, b, groups=1)\n return (relu | relu6)(c) }\n replacement { return conv2d(x, w, b) } }\n' > "$tmp/act.rules"
    expect 0 "  n1 = relu(n0) | relu6(n0)" -- "$rewrite" check --dump "$tmp/act.rules"
    expect 0 "  conv2d#0 groups=1" -- "$rewrite" check --dump "$tmp/act.rules"
    expect 0 "  c1 = relu(c0) | relu6(c0)  anchors conv_act" -- "$rewrite" check --dump "$tmp/act.rules"
    expect 0 "--dump" -- "$rewrite" check --help
    # Conditions on constants show as written.
    printf 'rule zb { pattern(x, w, b) { return conv2d(x, w, b) }\n where param(w), not buffer(b), value(b) == 0 ~ 1e-6\n replacement { return conv2d(x, w) } }\n' > "$tmp/zb.rules"
    expect 0 "  where value(b) == 0 ~ 1e-6" -- "$rewrite" check --dump "$tmp/zb.rules"
    expect 0 "  where not buffer(b)" -- "$rewrite" check --dump "$tmp/zb.rules"
    printf 'rule r { pattern(x, y) { return relu(x) }\n where const(y)\n replacement { return x } }\n' > "$tmp/unbound.rules"
    expect 1 "unbound.rules:2:14: error: parameter 'y' does not occur in the pattern, so the engine cannot bind it" -- \
      "$rewrite" check --dump "$tmp/unbound.rules"
    [ -z "$("$rewrite" check --dump "$tmp/unbound.rules" 2>/dev/null)" ] || fail "a rejected --dump printed a dump"
    # Plain check runs lowering's checks too: what it accepts, `rewrite --rules` accepts.
    expect 1 "unbound.rules:2:14: error: parameter 'y' does not occur in the pattern, so the engine cannot bind it" -- \
      "$rewrite" check "$tmp/unbound.rules"
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
  confinement)
    # Files named inside a model or a rule file stay in its folder unless --allow-path says more.
    mkdir "$tmp/m"
    weights="${example%.json}.safetensors"
    cp "$weights" "$tmp/outside.safetensors"
    sed 's|"weights": "model.safetensors"|"weights": "../outside.safetensors"|' "$example" > "$tmp/m/up.json"
    expect 1 "up.json:4:2: /weights: error: '../outside.safetensors' leaves the model's folder" \
      -- "$rewrite" "$tmp/m/up.json" -o "$tmp/m/out.json"
    [ ! -e "$tmp/m/out.json" ] || fail "a rejected model was written"
    expect 0 "wrote" -- "$rewrite" "$tmp/m/up.json" -o "$tmp/m/out.json" --allow-path "$tmp"
    sed 's|"weights": "model.safetensors"|"weights": "/etc/passwd"|' "$example" > "$tmp/m/abs.json"
    expect 1 "'/etc/passwd' is an absolute path" -- "$rewrite" print "$tmp/m/abs.json"
    ln -s "$tmp/outside.safetensors" "$tmp/m/link.safetensors"
    sed 's|"weights": "model.safetensors"|"weights": "link.safetensors"|' "$example" > "$tmp/m/link.json"
    expect 1 "'link.safetensors' resolves to" -- "$rewrite" run "$tmp/m/link.json"
    expect 0 "" -- "$rewrite" run "$tmp/m/link.json" --allow-path "$tmp"
    sed 's|"weights": "model.safetensors"|"weights": "model.safetensors\\u0000x"|' "$example" > "$tmp/m/nul.json"
    expect 1 "contains the control character" -- "$rewrite" dot "$tmp/m/nul.json"
    expect 2 "Directory does not exist" -- "$rewrite" print "$tmp/m/up.json" --allow-path "$tmp/none"
    expect 2 "give --allow-path after the subcommand" -- "$rewrite" --allow-path "$tmp" print "$tmp/m/up.json"
    # An import outside is refused before it is read: nothing of the file is quoted.
    printf 'import "/etc/passwd"\n' > "$tmp/m/abs.rules"
    out=$("$rewrite" check "$tmp/m/abs.rules" 2>&1)
    [ $? = 1 ] || fail "an absolute import was accepted: $out"
    grep -qF "abs.rules:1:8: error: '/etc/passwd' is an absolute path" <<<"$out" || fail "message: $out"
    grep -q "root:" <<<"$out" && fail "the imported file was quoted: $out"
    printf 'import "../up.rules"\n' > "$tmp/m/up.rules"
    for sub in check test verify; do
      expect 1 "leaves the importing file's folder" -- "$rewrite" $sub "$tmp/m/up.rules"
    done
    expect 1 "leaves the importing file's folder" -- "$rewrite" --rules "$tmp/m/up.rules" "$example" --dry-run
    : > "$tmp/up.rules"
    expect 0 "0 rules" -- "$rewrite" check "$tmp/m/up.rules" --allow-path "$tmp"
    # verify loads each synthesised graph through a generated file importing the rule file, which
    # must still reach it (and the imports the user allowed): graphs checked, not skipped.
    printf 'rule relu_relu { pattern(x) { return relu(relu(x)) } replacement { return relu(x) } }\n' > "$tmp/lib.rules"
    printf 'import "../lib.rules"\nrule mul_one { pattern(x) { return mul(x, 1) } replacement { return x } }\n' > "$tmp/m/use.rules"
    expect 0 "1 verified (1 proved), 0 failed, 0 skipped" -- "$rewrite" verify "$tmp/m/use.rules" --allow-path "$tmp"
    expect 0 " verified, 0 failed, 0 skipped" -- "$rewrite" verify "$src/rules/fold_bn.rules"
    ;;
  strict-inputs)
    # What nlohmann alone accepts and the reference safetensors reader rejects.
    cp "${example%.json}.safetensors" "$tmp/model.safetensors"
    sed '0,/"target": "x"/s//"target": "x", "target": "y"/' "$example" > "$tmp/dup.json"
    expect 1 "dup.json:13:19: error: duplicate key 'target' in /nodes/0 (first given at 13:4)" \
      -- "$rewrite" print "$tmp/dup.json"
    { cat "$example"; printf '\0{"junk": 1}'; } > "$tmp/nul.json"
    expect 1 "invalid JSON: a NUL byte" -- "$rewrite" print "$tmp/nul.json"
    cp "$example" "$tmp/tail.json"
    { cat "${example%.json}.safetensors"; printf 'xxxx'; } > "$tmp/model.safetensors"
    expect 1 "4 trailing bytes belong to no tensor" -- "$rewrite" "$tmp/tail.json" -o "$tmp/o.json"
    [ ! -e "$tmp/o.json" ] || fail "a model with bad weights was written"
    ;;
  rule-changes-type)
    # A replacement of another shape is the rule's error, at its return; nothing is written.
    cat > "$tmp/halve.rules" <<'RULES'
rule halve {
  pattern(x) { return relu(x) }
  replacement {
    return max_pool2d(x, [2, 2])
  }
}
test halves {
  graph(x: f32[1, 8, 4, 4]) { return relu(x) }
  apply halve
}
RULES
    message="halve.rules:4:12: error: rule 'halve' changes the type of"
    expect 1 "$message 'stem_relu' from float32[N, 16, 32, 32] to float32[N, 16, 16, 16]" -- \
      "$rewrite" --rules "$tmp/halve.rules" "$example" -o "$tmp/out.json"
    [ ! -e "$tmp/out.json" ] || fail "a rule error still wrote a model"
    ls "$tmp" | grep -q safetensors && fail "a rule error wrote weights"
    out=$("$rewrite" --rules "$tmp/halve.rules" "$example" -o "$tmp/out.json" 2>&1)
    grep -q "recorded type" <<<"$out" && fail "the verifier blamed the model: $out"
    expect 1 "$message 'relu' from float32[1, 8, 4, 4] to float32[1, 8, 2, 2]" -- \
      "$rewrite" test "$tmp/halve.rules"
    ;;
  hostile-names)
    # Names, targets, keys, dim symbols and rule lines with terminal escapes, \r, \n, NUL and
    # invalid UTF-8: every output spells them out (\e, \r, \n, \x00, \xff) and stays
    # valid UTF-8 without control bytes other than newlines and tabs.
    python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
x, r = "x\u001b[31m", "r\r\n\u0000evil\u009b"
def model(target="relu", kwargs=None):
    call = {"name": r, "op": "call_function", "target": target, "args": [{"node": x}]}
    if kwargs: call["kwargs"] = kwargs
    return {"format": "graft.model", "version": 1, "nodes": [
        {"name": x, "op": "placeholder", "target": x,
         "meta": {"dtype": "float32", "shape": ["N\u001b[0m", 3]}},
        call, {"name": "output", "op": "output", "args": [[{"node": r}]]}]}
json.dump(model(), open(tmp + "/esc.json", "w"))
json.dump(model(target="relu\u001b[2J"), open(tmp + "/bad_op.json", "w"))
json.dump(model(kwargs={"k\u001b[5m": 1}), open(tmp + "/bad_key.json", "w"))
open(tmp + "/utf8.json", "wb").write(json.dumps(model()).encode().replace(b"evil", b"\xff\x1b"))
open(tmp + "/esc.rules", "wb").write(
    b"rule r\x1b[31m { pattern(x) { return relu(x) } replacement { return x } } # \xff\n")
PY
    clean() {  # clean FILE: no control bytes but \n and \t, valid UTF-8
      python3 -c "
import sys; d = open(sys.argv[1], 'rb').read(); d.decode('utf-8')
sys.exit(any((b < 32 and b not in (9, 10)) or b == 127 for b in d))" "$1" \
        || fail "raw control bytes or invalid UTF-8 in the output of: ${*:2}"$'\n'"$(cat -v "$1")"
    }
    run_clean() {  # run_clean CODE PATTERN -- command...
      local code=$1 pattern=$2
      shift 3
      "$@" > "$tmp/out.txt" 2>&1
      local got=$?
      [ "$got" = "$code" ] || fail "exit $got, expected $code: $*"$'\n'"$(cat -v "$tmp/out.txt")"
      clean "$tmp/out.txt" "$@"
      grep -qF -- "$pattern" "$tmp/out.txt" || fail "output lacks '$pattern': $*"$'\n'"$(cat -v "$tmp/out.txt")"
    }
    rules="$src/examples/rules/fuse.rules"
    run_clean 0 'r\r\n\x00evil\u009b  relu' -- "$rewrite" print "$tmp/esc.json"
    run_clean 0 'float32[N\e[0m, 3]' -- "$rewrite" print "$tmp/esc.json"
    run_clean 0 'label="x\\e[31m\nfloat32[N\\e[0m, 3]"' -- "$rewrite" dot "$tmp/esc.json"
    run_clean 1 "unknown op 'relu\e[2J'" -- "$rewrite" print "$tmp/bad_op.json"
    run_clean 1 "/nodes/1/kwargs/k\e[5m: error: relu() has no parameter 'k\e[5m'" -- \
      "$rewrite" print "$tmp/bad_key.json"
    run_clean 1 "ill-formed UTF-8 byte; last read: '\"r\\r\\n\\u0000\xff'" -- \
      "$rewrite" print "$tmp/utf8.json"
    run_clean 1 ' 1 | rule r\e[31m { pattern' -- "$rewrite" check "$tmp/esc.rules"
    run_clean 1 "no node named 'r\e[31m'" -- \
      "$rewrite" --rules "$rules" "$tmp/esc.json" --explain $'fuse_conv_bn@r\e[31m'
    run_clean 0 "remove_dropout@x\\e[31m in phase 'default': no match" -- \
      "$rewrite" --rules "$rules" "$tmp/esc.json" --explain $'remove_dropout@x\e[31m'
    run_clean 0 "0 rewrites" -- "$rewrite" --rules "$rules" "$tmp/esc.json" --dry-run --stats
    run_clean 0 'r\r\n\x00evil\u009b: float32[1, 3]' -- "$rewrite" run "$tmp/esc.json" --batch 1 --dump
    run_clean 1 "cannot open" -- "$rewrite" print "$tmp/"$'\e[31m\r.json'
    run_clean 2 'not expected: --no-such-\e[31m' -- "$rewrite" $'--no-such-\e[31m'
    ;;
  odd-input-files)
    # FIFOs and devices where a file is expected: refused at once (a FIFO used to block
    # forever, /dev/zero to be read until memory ran out). `timeout` turns a hang into a failure.
    mkfifo "$tmp/fifo"
    expect 1 "is not a regular file (it is a FIFO)" -- timeout 20 "$rewrite" print "$tmp/fifo"
    expect 1 "is not a regular file (it is a character device)" -- timeout 20 "$rewrite" print /dev/zero
    expect 1 "is not a regular file (it is a FIFO)" -- timeout 20 "$rewrite" check "$tmp/fifo"
    expect 1 "is not a regular file (it is a character device)" -- timeout 20 "$rewrite" check /dev/zero
    printf 'import "/dev/zero"\n' > "$tmp/imports_zero.rules"
    expect 1 "imports_zero.rules:1:8: error: '/dev/zero' is not a regular file" -- \
      timeout 20 "$rewrite" check "$tmp/imports_zero.rules" --allow-path /dev
    printf 'import "fifo"\n' > "$tmp/imports_fifo.rules"
    expect 1 "is not a regular file (it is a FIFO)" -- timeout 20 "$rewrite" test "$tmp/imports_fifo.rules"
    expect 1 "is not a regular file (it is a FIFO)" -- timeout 20 "$rewrite" --rules "$tmp/fifo" "$example" --dry-run
    expect 1 "is not a regular file (it is a FIFO)" -- timeout 20 "$rewrite" run "$example" --input "x=$tmp/fifo"
    expect 1 "is not a regular file (it is a character device)" -- \
      timeout 20 "$rewrite" run "$example" --input x=/dev/zero
    sed 's/"model.safetensors"/"fifo"/' "$example" > "$tmp/fifo_weights.json"
    expect 1 "is not a regular file (it is a FIFO)" -- timeout 20 "$rewrite" print "$tmp/fifo_weights.json"
    ;;
  typed-inputs)
    # int64 and bool inputs, symbolic dims bound by --dim, and every rejection of an input.
    python3 - "$tmp" <<'PY'
import json, struct, sys
tmp = sys.argv[1]
def npy(name, descr, shape, fmt, values):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
    data = struct.pack('<%d%s' % (len(values), fmt), *values)
    open(tmp + '/' + name, 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + data)
npy('ids.npy', '<i8', '(2, 4)', 'q', [0, 1, 2, 3, 4, 5, 6, 0])
npy('far.npy', '<i8', '(1, 4)', 'q', [1, 9, 2, 3])
npy('flat.npy', '<i8', '(4,)', 'q', [1, 2, 3, 4])
npy('floats.npy', '<f4', '(2, 4)', 'f', [0.0] * 8)
npy('mask.npy', '|b1', '(2, 4)', 'B', [1, 0, 0, 1, 1, 1, 0, 0])
header = json.dumps({"table": {"dtype": "F32", "shape": [7, 3], "data_offsets": [0, 84]}}).encode()
open(tmp + '/m.safetensors', 'wb').write(struct.pack('<Q', len(header)) + header +
                                         struct.pack('<21f', *range(21)))
ph = lambda name, dtype: {"name": name, "op": "placeholder", "target": name,
                          "meta": {"shape": ["N", "T"], "dtype": dtype}}
json.dump({"format": "graft.model", "version": 1, "weights": "m.safetensors", "nodes": [
    ph("ids", "int64"), ph("mask", "bool"),
    {"name": "table", "op": "get_attr", "target": "table"},
    {"name": "emb", "op": "call_function", "target": "embedding",
     "args": [{"node": "ids"}, {"node": "table"}]},
    {"name": "mask_t", "op": "call_function", "target": "transpose",
     "args": [{"node": "mask"}, 0, 1]},
    {"name": "output", "op": "output", "target": "output",
     "args": [[{"node": "emb"}, {"node": "mask_t"}]]}]}, open(tmp + '/m.json', 'w'))
PY
    m="$tmp/m.json"
    expect 0 "emb: float32[2, 4, 3] sum=213" -- "$rewrite" run "$m" --input "ids=$tmp/ids.npy" --input "mask=$tmp/mask.npy"
    expect 0 "mask_t: bool[4, 2] sum=4" -- "$rewrite" run "$m" --input "ids=$tmp/ids.npy" --input "mask=$tmp/mask.npy"
    expect 0 "emb: float32[3, 5, 3]" -- "$rewrite" run "$m" --dim T=5 --batch 3
    expect 0 "emb: float32[2, 4, 3]" -- "$rewrite" run "$m" --dim T=4 --dim N=2 -o "$tmp/out.npz"
    expect 0 "p50" -- "$rewrite" bench "$m" --dim T=16 --batch 4 --iters 2 --warmup 0
    expect 0 "p50" -- "$rewrite" bench "$m" --input "ids=$tmp/ids.npy" --input "mask=$tmp/mask.npy" --iters 1
    expect 1 "has the symbolic dim 'T' in [N, T]; give its value (--dim T=N" -- "$rewrite" run "$m"
    expect 1 "--dim gives 'T' twice" -- "$rewrite" run "$m" --dim T=4 --dim T=5
    expect 1 "--dim 'T=-1' must be SYMBOL=N with N a non-negative integer" -- "$rewrite" run "$m" --dim T=-1
    expect 1 "--dim names 'Q', which is not a symbol of the model's inputs or attributes (its symbols: N, T)" \
      -- "$rewrite" bench "$m" --dim Q=3
    expect 1 "--input names 'idz', which is not an input of the model (its inputs: ids, mask)" \
      -- "$rewrite" run "$m" --input "idz=$tmp/ids.npy"
    expect 1 "--input gives 'ids' twice" -- "$rewrite" bench "$m" --input "ids=$tmp/ids.npy" --input "ids=$tmp/ids.npy"
    expect 1 "floats.npy: error: holds float32 values, but input 'ids' is int64[N, T]" \
      -- "$rewrite" run "$m" --input "ids=$tmp/floats.npy" --dim T=4
    expect 1 "flat.npy: error: has shape [4] (rank 1), but input 'ids' is int64[N, T]" \
      -- "$rewrite" run "$m" --input "ids=$tmp/flat.npy"
    expect 1 "symbol 'T' is bound to 5 but input 'ids' gives it 4" \
      -- "$rewrite" run "$m" --input "ids=$tmp/ids.npy" --dim T=5
    expect 1 "node 'emb' (embedding): index 9 is out of range for the 7 rows of the weight" \
      -- "$rewrite" run "$m" --input "ids=$tmp/far.npy" -o "$tmp/far.npz"
    [ ! -e "$tmp/far.npz" ] || fail "a failed run wrote its output"
    ;;
  symbolic-attrs)
    # x[:, :T] and arange(T): T is bound by --dim alone, prints bare, and a T past x's 8
    # columns is an error naming the node.
    cat > "$tmp/m.json" <<'JSON'
{"format": "graft.model", "version": 1, "nodes": [
 {"name": "x", "op": "placeholder", "meta": {"shape": ["N", 8], "dtype": "float32"}},
 {"name": "head", "op": "call_function", "target": "slice", "args": [{"node": "x"}, 1, null, "T"]},
 {"name": "pos", "op": "call_function", "target": "arange", "args": [0, "T"]},
 {"name": "output", "op": "output", "args": [[{"node": "head"}, {"node": "pos"}]]}]}
JSON
    m="$tmp/m.json"
    expect 0 "{dim: 1, end: T}    float32[N, T]" -- "$rewrite" print "$m"
    expect 0 "pos: int64[5] sum=10" -- "$rewrite" run "$m" --batch 2 --dim T=5
    expect 0 "head: float32[2, 8]" -- "$rewrite" run "$m" --batch 2 --dim T=8
    expect 1 "error: node 'head' (slice) computes [2, 8] at T=9, not [2, T]: a symbol's value runs past the dim it indexes" \
      -- "$rewrite" run "$m" --batch 2 --dim T=9
    expect 1 "node 'head' (slice) has end=T, but no input shape binds 'T'; give its value (--dim T=N)" \
      -- "$rewrite" run "$m" --batch 2
    # [N*T, 8] back to [N, T, 8] (SymInt[] sizes), then to [N, T, 4], which holds half the
    # elements: the error names the node once the symbols are bound.
    cat > "$tmp/reshape.json" <<'JSON'
{"format": "graft.model", "version": 1, "nodes": [
 {"name": "x", "op": "placeholder", "meta": {"shape": ["N", "T", 8], "dtype": "float32"}},
 {"name": "rows", "op": "call_function", "target": "flatten", "args": [{"node": "x"}, 0, 1]},
 {"name": "back", "op": "call_function", "target": "reshape", "args": [{"node": "rows"}, ["N", "T", 8]]},
 {"name": "output", "op": "output", "args": [[{"node": "back"}]]}]}
JSON
    expect 0 "{shape: [N, T, 8]}  float32[N, T, 8]" -- "$rewrite" print "$tmp/reshape.json"
    expect 0 "back: float32[2, 3, 8]" -- "$rewrite" run "$tmp/reshape.json" --batch 2 --dim T=3
    sed -i 's/\["N", "T", 8\]\]/["N", "T", 4]]/' "$tmp/reshape.json"
    expect 1 "error: node 'back' (reshape): cannot reshape [6, 8] (48 elements) into [2, 3, 4] (24 elements)" \
      -- "$rewrite" run "$tmp/reshape.json" --batch 2 --dim T=3
    ;;
  large-inputs)
    # Small files that declare huge contents, and files above a reader's limit: refused
    # before anything that size is allocated or read.
    npy() {  # npy SHAPE FILE: a float32 .npy header declaring SHAPE, then 16 bytes of data
      python3 - "$1" "$2" <<'PY'
import sys
h = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % sys.argv[1]
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open(sys.argv[2], 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + bytes(16))
PY
    }
    npy "(1, 3, 20000, 16000)" "$tmp/big.npy"
    expect 1 "the file holds 16 bytes of data, but shape [1, 3, 20000, 16000] of '<f4' needs 3840000000" \
      -- "$rewrite" run "$example" --input "x=$tmp/big.npy"
    npy "(999999999999999, 999999999999999)" "$tmp/overflow.npy"
    expect 1 "(its element count overflows int64)" -- "$rewrite" run "$example" --input "x=$tmp/overflow.npy"
    # A safetensors header of 100 MB + 1 (sparse: nothing is written or read).
    python3 -c "import sys; sys.stdout.buffer.write((100000001).to_bytes(8, 'little'))" > "$tmp/w.safetensors"
    truncate -s 100000009 "$tmp/w.safetensors"
    sed 's/"model.safetensors"/"w.safetensors"/' "$example" > "$tmp/long_header.json"
    expect 1 "header length 100000001 exceeds the limit of 100000000 bytes" -- "$rewrite" print "$tmp/long_header.json"
    : > "$tmp/big.rules" && truncate -s 17M "$tmp/big.rules"
    expect 1 "big.rules' is 17825792 bytes; graft reads rule files up to 16 MiB" -- "$rewrite" check "$tmp/big.rules"
    printf 'rule r { pattern(x) { return relu(x) } replacement { return x } }
test t {
  graph(x: f32[2, 2]) {
    w = param f32[100000, 100000]
    return relu(x)
  }
  expect count(relu) == 0
}\n' > "$tmp/big_param.rules"
    expect 1 "big_param.rules:4:15: error: float32[100000, 100000] brings the test's tensors" -- \
      "$rewrite" test "$tmp/big_param.rules"
    ;;
  out-of-memory)
    # Memory running out is a rejected input (exit 1, "out of memory"), not mimalloc's abort.
    if [ "${GRAFT_SANITIZED:-0}" = 1 ]; then
      echo "skipped ($case_name): AddressSanitizer reserves terabytes of address space, so ulimit -v cannot bound rewrite"
      exit 77
    fi
    python3 - "$tmp/chain.json" <<'PY'
import sys
n = 300000
parts = ['{"format": "graft.model", "version": 1, "nodes": [{"name": "x", "op": "placeholder", '
         '"target": "x", "meta": {"dtype": "float32", "shape": [4]}}']
parts += [',{"name": "r%d", "op": "call_function", "target": "relu", "args": [{"node": "%s"}]}'
          % (i, 'x' if i == 0 else 'r%d' % (i - 1)) for i in range(n)]
parts.append(',{"name": "output", "op": "output", "args": [[{"node": "r%d"}]]}]}' % (n - 1))
open(sys.argv[1], 'w').write(''.join(parts))
PY
    # About 420 MB are needed; 550 MB of address space hold the program and its 256 MiB reserve.
    expect 1 "rewrite: error: out of memory" -- bash -c 'ulimit -v 550000 && exec "$@"' _ "$rewrite" print "$tmp/chain.json"
    ;;
  flag-ranges)
    # Thread counts libgomp and oneDNN cannot start, and run counts whose samples would not
    # fit in memory: usage errors.
    expect 2 "--threads: Value 100000 not in range 1 to 1024" -- "$rewrite" run "$example" --threads 100000
    expect 2 "--threads: Value 16384 not in range 1 to 1024" -- "$rewrite" run "$example" --threads 16384
    expect 2 "--threads: Value 0 not in range 1 to 1024" -- "$rewrite" run "$example" --threads 0
    expect 2 "--threads: Value 16384 not in range 1 to 1024" -- "$rewrite" bench "$example" --threads 16384
    expect 2 "--iters: Value 2000000 not in range 1 to 1000000" -- "$rewrite" bench "$example" --iters 2000000
    expect 2 "--warmup: Value 2000000 not in range 0 to 1000000" -- "$rewrite" bench "$example" --warmup 2000000
    expect 0 "" -- "$rewrite" run "$example" --threads 1024
    # OMP_NUM_THREADS is held to the same limit.
    expect 0 "" -- env OMP_NUM_THREADS=100000 "$rewrite" run "$example"
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
  pattern-parts)
    # A pattern whose outputs share no input (torch.fx's `return relu(a), sigmoid(b)`): check
    # accepts it, its in-file test and `verify` pass, and a rewrite pairs each relu with the
    # first sigmoid in graph order that no earlier match took, keeping the outputs.
    cat > "$tmp/pair.rules" <<'EOF'
/// relu(a) and sigmoid(b) of unrelated values, rewritten together.
rule pair {
  pattern(a, b) {
    r = relu(a)
    s = sigmoid(b)
    return r, s
  }
  where dtype(a) == f32, dtype(b) == f32
  replacement { return clamp(a, min=0.0), 0.5 * tanh(0.5 * b) + 0.5 }
}
phase parts once { pair }

test pair_both {
  graph(x: f32[2, 3], y: f32[2, 3]) {
    r = relu(x)
    s = sigmoid(y)
    return r, s
  }
  apply pair
  expect count(relu) == 0, count(sigmoid) == 0, count(clamp) == 1
  expect equivalent(rtol=1e-5, atol=1e-6)
}
EOF
    cat > "$tmp/pair.json" <<'EOF'
{"format": "graft.model", "version": 1, "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "meta": {"dtype": "float32", "shape": [2, 3]}},
  {"name": "y", "op": "placeholder", "target": "y", "meta": {"dtype": "float32", "shape": [2, 3]}},
  {"name": "r1", "op": "call_function", "target": "relu", "args": [{"node": "x"}]},
  {"name": "t", "op": "call_function", "target": "exp", "args": [{"node": "r1"}]},
  {"name": "s1", "op": "call_function", "target": "sigmoid", "args": [{"node": "t"}]},
  {"name": "s2", "op": "call_function", "target": "sigmoid", "args": [{"node": "y"}]},
  {"name": "r2", "op": "call_function", "target": "relu", "args": [{"node": "y"}]},
  {"name": "s3", "op": "call_function", "target": "sigmoid", "args": [{"node": "x"}]},
  {"name": "output", "op": "output", "args": [[{"node": "s1"}, {"node": "s2"}, {"node": "r2"}, {"node": "s3"}]]}]}
EOF
    expect 0 "1 rule, 1 phase, 1 test" -- "$rewrite" check "$tmp/pair.rules"
    expect 0 "  pair: n0=c0 n1=c1; 4 slots; choices; 2 parts; where reads a b" -- \
      "$rewrite" check --dump "$tmp/pair.rules"
    expect 0 "1 passed, 0 failed" -- "$rewrite" test "$tmp/pair.rules"
    expect 0 "1 verified, 0 failed" -- "$rewrite" verify "$tmp/pair.rules" --graphs 4
    # r1 cannot pair with s1, which reads a value computed from r1 (a cycle): it takes s2.
    # r2 then takes s1, the first sigmoid left in graph order; s3 stays.
    out=$("$rewrite" --rules "$tmp/pair.rules" "$tmp/pair.json" -o "$tmp/pair_out.json" --stats 2>&1) \
      || fail "$out"
    grep -qF "pair                                  2        2        2" <<<"$out" || fail "$out"
    expect 0 "pair@r1: applied in phase 'parts'" -- \
      "$rewrite" --rules "$tmp/pair.rules" "$tmp/pair.json" --explain pair@r1
    [ "$("$rewrite" print "$tmp/pair_out.json" | grep -c " sigmoid ")" = 1 ] \
      || fail "not two sigmoids rewritten: $("$rewrite" print "$tmp/pair_out.json")"
    "$rewrite" print "$tmp/pair_out.json" | grep -q "call_function  s3 *sigmoid" \
      || fail "s3 was rewritten: $("$rewrite" print "$tmp/pair_out.json")"
    [ "$("$rewrite" run "$tmp/pair.json" --seed 4)" = "$("$rewrite" run "$tmp/pair_out.json" --seed 4)" ] \
      || fail "outputs differ after the rewrite"
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
    expect 0 "sum.rules:1:6: warning: rule 'every_rank' skipped at node 't30'" \
      -- "${run[@]}" -o "$tmp/out.json"
    expect 0 "skipped at node 't30': no match found or ruled out within 100000 binding steps" \
      -- "${run[@]}" --dry-run
    # The warning shows the rule's line with a caret under its name.
    out=$("${run[@]}" --dry-run 2>&1)
    grep -qE '^ +\| +\^~{9}$' <<<"$out" || fail "no caret under the rule's name"
    [ "$("${run[@]}" --dry-run 2>&1 | grep -c warning)" = 1 ] || fail "not one warning"
    "$rewrite" print "$tmp/out.json" | grep -q "call_function  t30" || fail "the model was not written"
    expect 0 "every_rank@t30 in phase 'default': no match: gave up after 100000 binding steps" \
      -- "${run[@]}" --explain every_rank@t30
    ;;
  spatial-attrs)
    # Bad attributes of interpolate and conv3d: located errors and exit 1, never a crash.
    call_model() {  # INPUT_SHAPE TARGET EXTRA_ARGS KWARGS FILE
      printf '{"format": "graft.model", "version": 1, "nodes": [
        {"name": "x", "op": "placeholder", "target": "x", "meta": {"dtype": "float32", "shape": %s}},
        {"name": "w", "op": "placeholder", "target": "w", "meta": {"dtype": "float32", "shape": [6, 2, 3, 3, 3]}},
        {"name": "y", "op": "call_function", "target": "%s", "args": [{"node": "x"}%s], "kwargs": %s},
        {"name": "output", "op": "output", "args": [[{"node": "y"}]]}]}' "$1" "$2" "$3" "$4" > "$5"
    }
    call_model '[1, 3, 7, 5]' interpolate '' '{"size": [4, 4], "mode": "bicubic"}' "$tmp/mode.json"
    expect 1 "mode.json: /nodes/2/kwargs/mode: error: interpolate(): bad value for 'mode': expected one of 'nearest', 'bilinear', got str 'bicubic'" \
      -- "$rewrite" run "$tmp/mode.json"
    call_model '[1, 3, 7, 5]' interpolate '' '{"size": [4, 4], "scale_factor": [2.0, 2.0]}' "$tmp/both.json"
    expect 1 "both.json: /nodes/2: error: node 'y' (interpolate): exactly one of size and scale_factor must be given, got both" \
      -- "$rewrite" run "$tmp/both.json"
    call_model '[1, 3, 7, 5]' interpolate '' '{"scale_factor": [1e300, 1.0]}' "$tmp/huge.json"
    expect 1 "huge.json: /nodes/2: error: node 'y' (interpolate): scale_factor 1e+300 makes dim 2 of size 7 too large" \
      -- "$rewrite" run "$tmp/huge.json"
    call_model '[1, 4, 7, 5, 5]' conv3d ', {"node": "w"}' '{"groups": 4}' "$tmp/groups.json"
    expect 1 "groups.json: /nodes/2: error: node 'y' (conv3d): weight has 6 output channels, which groups=4 does not divide" \
      -- "$rewrite" run "$tmp/groups.json"
    call_model '[1, 4, 2, 5, 5]' conv3d ', {"node": "w"}' '{"groups": 2}' "$tmp/kernel.json"
    expect 1 "kernel.json: /nodes/2: error: node 'y' (conv3d): kernel [3, 3, 3] with dilation [1, 1, 1] spans 3 but the padded input has 2 along dim 2" \
      -- "$rewrite" run "$tmp/kernel.json"
    ;;
  *) fail "unknown case" ;;
esac
echo "ok ($case_name)"
