#!/usr/bin/env bash
# `rewrite verify` end to end: usage: verify_cli.sh REWRITE SOURCE_DIR CASE
#   wrong      a conv-bn fold without eps fails with a counterexample (exit 1), the correct fold
#              passes, a rule the float32 graphs cannot match is skipped with the reason
#   filter     --filter runs only the matching rules; a skip exits 1, or 0 with --allow-skip;
#              --graphs, --seed
#   ranges     rules right only near zero fail on the wider inputs, shrunk to a one-element
#              graph and the first integer past the threshold; a control passes
#   special    rules wrong only at zeros, infinities or NaN fail, shrunk to the NaN input;
#              controls pass
#   attributes rules right only at an attribute's default fail; a control passes
#   rank-dtype rules right for float32 or matrices only fail on int64 / batched variants
#   coverage   rules wrong only for two attributes that differ, an optional attribute set, a
#              literal off by less than its tolerance, 3-d inputs or magnitudes past 1e5 fail;
#              controls (torch's x ** 0.5 as sqrt, also at -inf and -0; a 1x1 convolution
#              without its dilation, the kernel size fixed by `dim` conditions) pass
#   half       rules conditioned on float16/bfloat16 run on half graphs: wrong ones fail, the
#              controls (right at the half format's precision) pass
#   instantiable a strict bound on a variable and a positional attribute before operands verify
#   unrunnable a rule that also rewrites graphs the runtime cannot run is not verified (SKIP)
#   prover     the prover stops at --prove-timeout, is not run once the tests fail, takes
#              attributes as finite numbers and refutes sqrt(x * x) -> abs(x) in float32
#   usage      a bad flag is a usage error (exit 2)
set -u
rewrite=$1
src=$2
case_name=$3
data=tests/rules/data/wrong_fold_bn.rules
cd "$src" || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fail() { echo "FAILED: $*"; echo "--- output:"; cat "$out"; exit 1; }
expect_line() { grep -qE "$1" "$out" || fail "no line matching '$1'"; }
verify_exits() {  # verify_exits RC ARGS...: `rewrite verify ARGS` into $out, exiting with RC
  local want=$1
  shift
  "$rewrite" verify "$@" >"$out" 2>&1
  local rc=$?
  [ $rc -eq "$want" ] || fail "exit code $rc, expected $want"
}

case $case_name in
  wrong)
    verify_exits 1 "$data"
    expect_line "^FAIL fold_bn_without_eps \\($data:5\\): counterexample: graph [0-9]+ \\(seed 0x[0-9a-f]+\\):"
    expect_line "batch_norm\\(y, mean, var, gamma, beta, training=false, eps="
    expect_line "output 0 at \\[.*\\]: expected .*, got .* \\(\\|diff\\| "
    expect_line "^PASS fold_bn \\($data:20, [0-9]+ graphs"
    expect_line "^SKIP relu_of_f64 \\($data:35\\): cannot instantiate: neither the runtime nor the reference can run it: error: node 't1' \\(relu\\): the reference kernel of 'relu' computes float32 only"
    expect_line "^1 verified, 1 failed, 1 skipped$"
    ;;
  ranges)
    near_zero=tests/rules/data/wrong_near_zero.rules
    verify_exits 1 "$near_zero"
    expect_line "^FAIL relu6_to_relu \\($near_zero:[0-9]+\\): counterexample"
    expect_line "^FAIL wide_hardtanh_to_identity \\($near_zero:[0-9]+\\): counterexample"
    expect_line "^FAIL hardswish_without_clamp \\($near_zero:[0-9]+\\): counterexample"
    expect_line "inputs in \\[-(8|64), (8|64)\\)"
    # The counterexample: the smallest graph that fails and the simplest input.
    expect_line "^    graph\\(x: f32\\[1, 1, 1, 1\\]\\) \\{$"
    expect_line "^    simplified: output 0 at \\[0, 0, 0, 0\\]: expected 6, got 7 "
    expect_line "^    inputs: x = \\[\\[\\[\\[7\\]\\]\\]\\]$"
    expect_line "^PROVED relu_of_relu \\($near_zero:[0-9]+, [0-9]+ graphs.*; over the reals and in float32\\)$"
    expect_line "^1 verified \\(1 proved\\), 3 failed, 0 skipped$"
    ;;
  special)
    special=tests/rules/data/wrong_special_values.rules
    verify_exits 1 "$special"
    for rule in mul_by_zero_is_zero div_by_self_is_one exp_of_log_is_identity div_by_zero_is_identity; do
      expect_line "^FAIL $rule \\($special:[0-9]+\\): counterexample"
    done
    # x * 0 differs from 0 only where x is ±inf or NaN.
    expect_line "expected nan, got 0 .*inputs with special values, ±inf and NaN"
    expect_line "^    inputs: x = \\[\\[\\[\\[nan\\]\\]\\]\\]$"
    expect_line "^PROVED double_negation \\($special:[0-9]+, [0-9]+ graphs"
    expect_line "^PROVED add_self_is_double \\($special:[0-9]+, [0-9]+ graphs"
    expect_line "^2 verified \\(2 proved\\), 4 failed, 0 skipped$"
    ;;
  attributes)
    attributes=tests/rules/data/wrong_free_attributes.rules
    verify_exits 1 "$attributes"
    for rule in elu_drops_alpha softplus_ignores_beta add_ignores_alpha; do
      expect_line "^FAIL $rule \\($attributes:[0-9]+\\): counterexample"
    done
    expect_line "^PASS elu_keeps_alpha \\($attributes:[0-9]+, [0-9]+ graphs"
    expect_line "^1 verified, 3 failed, 0 skipped$"
    ;;
  rank-dtype)
    rank_dtype=tests/rules/data/wrong_rank_dtype.rules
    verify_exits 1 "$rank_dtype"
    expect_line "^FAIL mul_one_any_dtype \\($rank_dtype:[0-9]+\\): the rewrite failed on graph [0-9]+"
    expect_line "graph\\(x: i64\\["
    expect_line "changes the type of 't1' from float32\\[.*\\] to int64\\["
    expect_line "^FAIL linear_as_2d_matmul \\($rank_dtype:[0-9]+\\): the rewrite failed on graph [0-9]+"
    expect_line "graph\\(x: f32\\[[0-9]+, [0-9]+, [0-9]+\\], w: f32"
    expect_line "^PROVED mul_one_floats \\($rank_dtype:[0-9]+, [0-9]+ graphs"
    expect_line "^PASS linear_as_matmul \\($rank_dtype:[0-9]+, [0-9]+ graphs"
    expect_line "^2 verified \\(1 proved\\), 2 failed, 0 skipped$"
    ;;
  coverage)
    coverage=tests/rules/data/wrong_coverage.rules
    verify_exits 1 "$coverage"
    for rule in transposes_cancel flips_cancel interpolate_drops_align_corners loose_literal \
                naive_softplus; do
      expect_line "^FAIL $rule \\($coverage:[0-9]+\\): counterexample"
    done
    # The replacement does not fit some instances at all (an output size, a dim out of range).
    for rule in max_pool_drops_ceil_mode softmax_last_is_3; do
      expect_line "^FAIL $rule \\($coverage:[0-9]+\\): the rewrite failed on graph [0-9]+"
    done
    for rule in pow_half_is_sqrt pow_minus_half_is_rsqrt; do
      expect_line "^PASS $rule \\($coverage:[0-9]+, 8 graphs\\)"
    done
    expect_line "^PROVED same_transpose_twice \\($coverage:[0-9]+, 8 graphs; over the reals and in float32, for ranks up to 6 of x\\)"
    expect_line "^PASS conv_1x1_drops_dilation \\($coverage:[0-9]+, [0-9]+ graphs"
    expect_line "^4 verified \\(1 proved\\), 7 failed, 0 skipped$"
    ;;
  half)
    half=tests/rules/data/wrong_half.rules
    verify_exits 1 "$half"
    expect_line "^FAIL relu6_to_relu_f16 \\($half:[0-9]+\\): counterexample: graph [0-9]+"
    expect_line "graph\\(x: f16\\[1, 1, 1, 1\\]\\) \\{"
    expect_line "simplified: output 0 at \\[0, 0, 0, 0\\]: expected 6, got 7 "
    expect_line "^FAIL mul_zero_bf16 \\($half:[0-9]+\\): counterexample: graph [0-9]+"
    expect_line "graph\\(x: bf16\\["
    expect_line "^FAIL drop_half_round_trip \\($half:[0-9]+\\): counterexample: graph [0-9]+"
    # Over the reals a rule's dtype does not matter; float32 is not these rules' arithmetic.
    expect_line "^PASS silu_f16 \\($half:[0-9]+, 8 graphs; proved over the reals\\)"
    expect_line "^PASS scale_twice_half \\($half:[0-9]+, 8 graphs; proved over the reals\\)"
    expect_line "^PASS softmax_spelled_f16 \\($half:[0-9]+, 8 graphs\\)"
    expect_line "^REFUTED scale_bf16 \\($half:[0-9]+\\): refuted: over the reals, x = "
    expect_line "^3 verified, 4 failed, 0 skipped$"
    ;;
  instantiable)
    instantiable=tests/rules/data/instantiable.rules
    verify_exits 0 "$instantiable"
    expect_line "^PASS relu_relu_bn_big_eps \\($instantiable:[0-9]+, [0-9]+ graphs"
    # layer_norm is an uninterpreted function: relu(relu(f)) is relu(f) whatever f computes.
    expect_line "^PROVED relu_relu_layer_norm \\($instantiable:[0-9]+, [0-9]+ graphs"
    expect_line "^2 verified \\(1 proved\\), 0 failed, 0 skipped$"
    ;;
  unrunnable)
    unrunnable=tests/rules/data/wrong_unrunnable.rules
    verify_exits 1 "$unrunnable"
    expect_line "^SKIP remove_any_dropout \\($unrunnable:[0-9]+\\): not verified: [0-9]+ graphs? passed, but the rule also rewrites graphs that cannot be run"
    expect_line "dropout in training mode with p > 0"
    expect_line "^PROVED remove_dropout_eval \\($unrunnable:[0-9]+, [0-9]+ graphs"
    expect_line "^PROVED remove_dropout_p0 \\($unrunnable:[0-9]+, [0-9]+ graphs"
    expect_line "^2 verified \\(2 proved\\), 0 failed, 1 skipped$"
    ;;
  prover)
    limits=tests/rules/data/prover_limits.rules
    # The float32 proof of the slow rule runs until the timeout, then the tests' PASS stands.
    start=$SECONDS
    verify_exits 0 "$limits" --filter slow_ --prove-timeout 0.5
    [ $((SECONDS - start)) -lt 10 ] || fail "verify took $((SECONDS - start)) s with --prove-timeout 0.5"
    expect_line "^PASS slow_leaky_as_relus \\($limits:[0-9]+, [0-9]+ graphs.*; proved over the reals; the float32 proof timed out after 0.5 s\\)$"
    verify_exits 1 "$limits" --filter limits_
    expect_line "^FAIL limits_reciprocal_add_zero \\($limits:[0-9]+\\): counterexample"
    expect_line "^  not proved: the prover does not run once the tests fail$"
    expect_line "^REFUTED limits_sqrt_of_square \\($limits:[0-9]+\\): refuted: in float32, x = .*: pattern inf, replacement "
    expect_line "^PROVED limits_add_zero_open_alpha \\($limits:[0-9]+, [0-9]+ graphs; over the reals and in float32\\)$"
    expect_line "^1 verified \\(1 proved\\), 2 failed, 0 skipped$"
    ;;
  filter)
    # A skipped rule was not checked: it fails the run unless --allow-skip; --graphs and --seed
    # are taken.
    verify_exits 1 "$data" --filter relu_of
    expect_line "^0 verified, 0 failed, 1 skipped$"
    expect_line "1 rule could not be checked \\(SKIP above\\); pass --allow-skip to accept that"
    verify_exits 0 "$data" --filter relu_of --allow-skip
    expect_line "^0 verified, 0 failed, 1 skipped$"
    verify_exits 0 rules/fold_bn.rules --filter linear --graphs 3 --seed 7
    expect_line "^PASS fold_linear_bn \\(rules/fold_bn.rules:[0-9]+, 3 graphs\\)$"
    expect_line "^1 verified, 0 failed, 0 skipped$"
    ;;
  usage)
    verify_exits 2 "$data" --graphs 0
    ;;
  *)
    echo "unknown case '$case_name'"
    exit 2
    ;;
esac
echo "ok: $case_name"
