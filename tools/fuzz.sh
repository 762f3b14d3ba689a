#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan + UBSan) into build-fuzz/ and runs each
# for SECONDS (default 60) on its corpus, then prints execs, coverage and findings per target.
#   tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      targets: rules model_json safetensors rewrite
# Environment: FUZZ_PARALLEL=N runs N targets at once (default 1); FUZZ_ARGS adds libFuzzer flags.
# Corpora grow in build-fuzz/corpus/<target> (seeded by fuzz/seed_corpus.py), findings land in
# build-fuzz/artifacts/<target>/, logs in build-fuzz/logs/. A finding is fixed in graft and
# its input kept under tests/fuzz_regressions/<target>/ (docs/reliability.md, "Fuzzing").
# Exits 1 when a run left a finding.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(rules model_json safetensors rewrite)
build="$root/build-fuzz"
parallel=${FUZZ_PARALLEL:-1}

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
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "== build (clang, libFuzzer + ASan + UBSan) in $build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAFT_FUZZ=ON -DBUILD_TESTING=OFF
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

python3 fuzz/seed_corpus.py "$build/corpus" "${targets[@]}"
mkdir -p "$build/logs" "$build/artifacts"

run_target() {
  local t=$1
  mkdir -p "$build/artifacts/$t"
  echo "fuzz: $t for ${seconds}s (log: $build/logs/$t.log)"
  # The oneDNN kernels that equivalence checks run use OpenMP; one thread per fuzzer. The CPU
  # seconds (user + sys) go to $t.cpu: on a shared machine they, not wall time, say how much
  # fuzzing a run did.
  local TIMEFORMAT='%U %S'
  { time {
    # shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
    OMP_NUM_THREADS=1 "$build/bin/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" ${FUZZ_ARGS:-} \
      "$build/corpus/$t" >"$build/logs/$t.log" 2>&1 || true
  }; } 2>"$build/logs/$t.cpu"
}

findings_before=$(find "$build/artifacts" -type f | wc -l)
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
for t in "${targets[@]}"; do
  log="$build/logs/$t.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(find "$build/corpus/$t" -type f | wc -l)
  findings=$(find "$build/artifacts/$t" -type f | wc -l)
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$build/logs/$t.cpu" 2>/dev/null || true)
  printf '%-12s %8s %12s %10s %10s %8s  %s\n' "$t" "${cpu:-?}" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" \
    "$findings$([ "$findings" -gt 0 ] && echo " in $build/artifacts/$t")"
done
findings_after=$(find "$build/artifacts" -type f | wc -l)
if [ "$findings_after" -gt "$findings_before" ]; then
  echo "fuzz: new findings; reproduce one with build-fuzz/bin/fuzz_<target> <file>"
  exit 1
fi
