#!/usr/bin/env bash
# README command 2: install dependencies, build with warnings as errors, run the default test
# suite; then build the whole suite again with AddressSanitizer + UndefinedBehaviorSanitizer and
# run it there too; then a short run of every libFuzzer target on its seeds (tools/fuzz.sh
# --smoke: clang, installed if missing; GRAFT_FUZZ_SMOKE=0 leaves it out, and says so). Long
# tests (label "slow") are left to tools/test.sh --slow.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
labels_excluded="slow"
[ "${1:-}" = "--slow" ] && labels_excluded="^$"

bash tools/install_deps.sh

echo "== build (Release, -Werror)"
bash tools/build.sh "$root/build"
echo "== tests"
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" -LE "$labels_excluded"

echo "== build (ASan + UBSan, -Werror)"
bash tools/build.sh "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAFT_SANITIZE=ON
echo "== tests under ASan + UBSan"
# torch-labelled tests drive Python; sanitizing the interpreter proves nothing about graft.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$(nproc)" -LE "slow|torch"

echo "== fuzz smoke run (clang, libFuzzer + ASan + UBSan)"
if [ "${GRAFT_FUZZ_SMOKE:-1}" = 0 ]; then
  echo "fuzz smoke run SKIPPED: GRAFT_FUZZ_SMOKE=0"
else
  bash tools/fuzz.sh --smoke
fi
