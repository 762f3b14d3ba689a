#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan + UBSan) into build-fuzz/ and runs each
# for SECONDS (default 60) on its corpus, then prints CPU seconds, execs, coverage and findings
# per target.
#   tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#       targets: rules model_json safetensors rewrite npy compile (default: all)
#   tools/fuzz.sh --smoke [TARGET...]
#       the short run of tools/test.sh: each target for FUZZ_SMOKE_SECONDS (default 20) on a
#       fresh corpus of its seeds only, as many at once as there are cores, with libFuzzer's
#       -seed=1
# Environment: FUZZ_PARALLEL=N runs N targets at once (default 1; --smoke: the cores);
# FUZZ_ARGS adds libFuzzer flags. Corpora grow in build-fuzz/corpus/<target> (seeded by
# fuzz/seed_corpus.py), findings land in build-fuzz/artifacts/<target>/, logs in
# build-fuzz/logs/ (--smoke: the same under build-fuzz/smoke/). A finding is fixed in graft and
# its input kept under tests/fuzz_regressions/<target>/ (docs/reliability.md, "Fuzzing").
# Exits 1 when a run left a finding or a fuzzer failed, and when clang cannot be installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
all_targets=(rules model_json safetensors rewrite npy compile)
build="$root/build-fuzz"
smoke=0
if [ "${1:-}" = "--smoke" ]; then
  smoke=1
  shift
  seconds=${FUZZ_SMOKE_SECONDS:-20}
  parallel=${FUZZ_PARALLEL:-$(nproc)}
  out="$build/smoke"
  # A fixed seed of libFuzzer's mutations: a test command should do the same thing each time
  # (up to how many inputs its time allows).
  flags=(-seed=1)
else
  seconds=${1:-60}
  shift || true
  parallel=${FUZZ_PARALLEL:-1}
  out="$build"
  flags=()
fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

bash tools/install_deps.sh
# clang brings libFuzzer (libclang-rt-dev); oneDNN's OpenMP needs clang's libomp.
clang_packages=(clang libclang-rt-dev libomp-dev)
missing=()
for p in "${clang_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "fuzz: installing ${missing[*]}"
  if ! { $SUDO apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
           "${missing[@]}"; }; then
    echo "fuzz: error: cannot install ${missing[*]} with apt-get; the fuzz targets need clang" \
         "and its libFuzzer (GRAFT_FUZZ_SMOKE=0 bash tools/test.sh runs the tests without them)" >&2
    exit 1
  fi
fi

echo "== build (clang, libFuzzer + ASan + UBSan) in $build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAFT_FUZZ=ON -DBUILD_TESTING=OFF)
  command -v ninja >/dev/null && options+=(-G Ninja)
  if command -v ccache >/dev/null; then
    options+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${options[@]}"
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

corpus="$out/corpus"
# The smoke run starts from the seeds alone each time: a corpus grown by long runs would take
# longer to load than the smoke run lasts. Its findings are this run's only: an earlier smoke
# run's (fixed since, or kept elsewhere) would be counted again.
[ "$smoke" = 1 ] && rm -rf "$corpus" "$out/artifacts"
python3 fuzz/seed_corpus.py "$corpus" "${targets[@]}"
mkdir -p "$out/logs" "$out/artifacts"

run_target() {
  local t=$1
  mkdir -p "$out/artifacts/$t"
  echo "fuzz: $t for ${seconds}s (log: $out/logs/$t.log)"
  # The oneDNN kernels that equivalence checks run use OpenMP; one thread per fuzzer. The CPU
  # seconds (user + sys) go to $t.cpu: on a shared machine they, not wall time, say how much
  # fuzzing a run did. libFuzzer's exit status goes to $t.rc (0: ran its time, no finding).
  local TIMEFORMAT='%U %S' rc=0
  { time {
    # shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
    OMP_NUM_THREADS=1 "$build/bin/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 -artifact_prefix="$out/artifacts/$t/" "${flags[@]}" \
      ${FUZZ_ARGS:-} "$corpus/$t" >"$out/logs/$t.log" 2>&1 || rc=$?
  }; } 2>"$out/logs/$t.cpu"
  echo "$rc" >"$out/logs/$t.rc"
}

findings_before=$(find "$out/artifacts" -type f | wc -l)
running=0
for t in "${targets[@]}"; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

echo
printf '%-12s %8s %12s %10s %10s %8s  %s\n' target cpu_s execs cov ft corpus findings
failed=()
for t in "${targets[@]}"; do
  log="$out/logs/$t.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus_size=$(find "$corpus/$t" -type f | wc -l)
  findings=$(find "$out/artifacts/$t" -type f | wc -l)
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$out/logs/$t.cpu" 2>/dev/null || true)
  printf '%-12s %8s %12s %10s %10s %8s  %s\n' "$t" "${cpu:-?}" "${execs:-?}" "${cov:-?}" \
    "${ft:-?}" "$corpus_size" "$findings$([ "$findings" -gt 0 ] && echo " in $out/artifacts/$t")"
  [ "$(cat "$out/logs/$t.rc")" = 0 ] || failed+=("$t")
done
findings_after=$(find "$out/artifacts" -type f | wc -l)
status=0
if [ ${#failed[@]} -gt 0 ]; then
  for t in "${failed[@]}"; do
    echo
    echo "fuzz: fuzz_$t exited with status $(cat "$out/logs/$t.rc"); the end of $out/logs/$t.log:"
    tail -n 40 "$out/logs/$t.log"
  done
  status=1
fi
if [ "$findings_after" -gt "$findings_before" ]; then
  echo "fuzz: new findings; reproduce one with $build/bin/fuzz_<target> <file>"
  status=1
fi
exit "$status"
