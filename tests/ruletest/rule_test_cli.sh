#!/usr/bin/env bash
# End-to-end checks of `rewrite test`: the report (PASS/FAIL lines, failures, summary), the
# exit codes (0 all passed, 1 a test failed or a file does not check, 2 usage), --filter, -v
# and --seed.
#   rule_test_cli.sh REWRITE_BINARY SOURCE_DIR CASE
set -uo pipefail
rewrite=$1
src=$2
case_name=$3
data="tests/ruletest/data"
cd "$src" || exit 1

fail() { echo "FAIL ($case_name): $*"; exit 1; }
# expect CODE PATTERN -- command...: runs the command, checks the exit code and that
# stdout+stderr contains PATTERN (a fixed string; "" for any).
expect() {
  local code=$1 pattern=$2
  shift 3
  out=$("$@" 2>&1)
  local got=$?
  [ "$got" = "$code" ] || fail "exit $got, expected $code: $*"$'\n'"$out"
  if [ -n "$pattern" ] && ! grep -qF -- "$pattern" <<<"$out"; then
    fail "output lacks '$pattern': $*"$'\n'"$out"
  fi
}
# lacks PATTERN: the last command's output does not contain PATTERN.
lacks() { ! grep -qF -- "$1" <<<"$out" || fail "output has '$1':"$'\n'"$out"; }

case "$case_name" in
  passing)
    expect 0 "4 passed, 0 failed" -- "$rewrite" test "$data/passing.rules"
    expect 0 "PASS $data/passing.rules:46 fuse_conv_bn_folds" -- "$rewrite" test "$data/passing.rules"
    lacks "graph after the rewrite"
    expect 0 "3 passed, 0 failed" -- "$rewrite" test examples/rules/fuse.rules
    # Two files at once; a file importing another runs only its own tests.
    expect 0 "7 passed, 0 failed" -- "$rewrite" test "$data/passing.rules" examples/rules/fuse.rules
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cp "$src/$data/passing.rules" "$tmp/passing.rules"
    printf 'import "passing.rules"\n' > "$tmp/importer.rules"
    expect 0 "0 passed, 0 failed" -- "$rewrite" test "$tmp/importer.rules"
    ;;
  failing)
    expect 1 "1 passed, 3 failed" -- "$rewrite" test "$data/failing.rules"
    expect 1 "PASS $data/failing.rules:36 passes" -- "$rewrite" test "$data/failing.rules"
    for line in "FAIL $data/failing.rules:44 wrong_count" \
                "$data/failing.rules:49: expect count(dropout) == 1" \
                "actual:   count(dropout) is 0" \
                "FAIL $data/failing.rules:52 wrong_graph" \
                "expect graph { … }" \
                "the graphs differ: output 0: 'relu' (conv2d_post) has activation='relu', expected 'relu6'" \
                "! conv2d_post = conv2d_post(x, w, None, padding=[1, 1], activation='relu6')" \
                "FAIL $data/failing.rules:64 forgotten_eps" \
                "expect equivalent(rtol=1e-4, atol=1e-5)" \
                "the rewritten graph computes different numbers:"; do
      grep -qF -- "$line" <<<"$out" || fail "report lacks '$line':"$'\n'"$out"
    done
    ;;
  filter)
    expect 0 "1 passed, 0 failed" -- "$rewrite" test "$data/failing.rules" --filter pass
    lacks "wrong_count"
    expect 1 "0 passed, 1 failed" -- "$rewrite" test "$data/failing.rules" --filter eps
    expect 0 "no test matches 'nothing'" -- "$rewrite" test "$data/failing.rules" --filter nothing
    ;;
  verbose-and-seed)
    expect 0 "graph after the rewrite (remove_dropout at dropout)" -- \
      "$rewrite" test "$data/passing.rules" -v --filter dropout
    expect 0 "4 passed, 0 failed" -- "$rewrite" test "$data/passing.rules" --seed 12345
    a=$("$rewrite" test "$data/failing.rules" --seed 3 --filter eps)
    b=$("$rewrite" test "$data/failing.rules" --seed 3 --filter eps)
    c=$("$rewrite" test "$data/failing.rules" --seed 4 --filter eps)
    [ "$a" = "$b" ] || fail "the same seed gave different reports"
    [ "$a" != "$c" ] || fail "another seed gave the same numbers"
    ;;
  broken)
    expect 1 "broken.rules:11:12: error: unknown op 'rellu' (did you mean 'relu'?)" -- \
      "$rewrite" test "$data/broken.rules"
    expect 1 "broken.rules: 1 error found; no test ran" -- "$rewrite" test "$data/broken.rules"
    expect 1 "0 passed, 0 failed" -- "$rewrite" test "$data/broken.rules"
    # The other files still run.
    expect 1 "4 passed, 0 failed" -- "$rewrite" test "$data/broken.rules" "$data/passing.rules"
    expect 1 "cannot open" -- "$rewrite" test "$data/missing.rules"
    ;;
  usage)
    expect 2 "" -- "$rewrite" test
    expect 2 "" -- "$rewrite" test "$data/passing.rules" --seed banana
    expect 0 "--filter" -- "$rewrite" test --help
    ;;
  *) fail "unknown case" ;;
esac
echo "ok ($case_name)"
