#!/usr/bin/env bash
# Runs `rewrite` on the bundled examples — check, test, verify, the main job, run, bench — and
# fails if any run leaks memory.
#   tools/leak_check.sh [REWRITE_BINARY] [--valgrind]
# With a sanitizer build of rewrite (build-asan), LeakSanitizer checks at exit (the default);
# --valgrind runs each command under valgrind's memcheck instead (any build; slower), counting
# "definitely" and "indirectly" lost blocks as errors. Both are quiet when nothing leaks.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rewrite=${1:-$root/build-asan/bin/rewrite}
mode=${2:-lsan}
cd "$root"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

model=examples/models/tiny_cnn/model.json
rules=(examples/rules/fuse.rules examples/rules/add_to_mul.rules examples/rules/my_fusion.rules)
commands=(
  "check ${rules[*]} rules/std.rules"
  "test ${rules[*]}"
  "verify examples/rules/fuse.rules --graphs 1 --trials 1"
  "--rules examples/rules/my_fusion.rules --rules rules/std.rules $model -o $out/model.json --stats"
  "print $out/model.json"
  "run $model --batch 2 --seed 7 -o $out/before.npz"
  "run $out/model.json --batch 2 --seed 7 -o $out/after.npz"
  "bench $out/model.json --threads 1 --iters 5"
  "--rules $root/tests/cli/data/unknown_op.json $model -o $out/rejected.json"  # an error path
)
status=0
for args in "${commands[@]}"; do
  # shellcheck disable=SC2086  # the commands are word lists
  if [ "$mode" = "--valgrind" ]; then
    log="$out/valgrind.log"
    # The executables link mimalloc: the soname synonym has memcheck replace its malloc and
    # free as well as libc's. Its operator delete[] is an alias of its free, which memcheck then
    # takes for a free() of a new[] block (oneDNN's static tables): mismatches are not reported.
    valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \
      '--soname-synonyms=somalloc=libmimalloc.so*' --show-mismatched-frees=no \
      --error-exitcode=99 --log-file="$log" "$rewrite" $args >/dev/null 2>&1 || code=$?
    code=${code:-0}
    if [ "$code" = 99 ]; then
      echo "LEAK: rewrite $args"; cat "$log"; status=1
    else
      echo "ok (exit $code): rewrite $args"
    fi
    unset code
  else
    ASAN_OPTIONS=detect_leaks=1:exitcode=98 "$rewrite" $args >/dev/null 2>"$out/stderr" || code=$?
    code=${code:-0}
    if [ "$code" = 98 ] || grep -q "LeakSanitizer" "$out/stderr"; then
      echo "LEAK: rewrite $args"; cat "$out/stderr"; status=1
    else
      echo "ok (exit $code): rewrite $args"
    fi
    unset code
  fi
done
exit $status
