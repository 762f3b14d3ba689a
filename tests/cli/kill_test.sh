#!/usr/bin/env bash
# A `rewrite` killed (SIGKILL) at any moment leaves the previous output or the new one, never a
# torn or mixed model (docs/reliability.md, "Atomic writes"); one stopped by SIGTERM also leaves
# no temporary file, and the next run writing the same output removes whatever a killed one
# left beside it. The model carries 64 MiB of weights so that a good share of the kills land
# while files are being written. Kills alternate between SIGKILL and SIGTERM.
#   kill_test.sh REWRITE_BINARY SOURCE_DIR [KILLS]
set -uo pipefail
rewrite=$1
src=$2
kills=${3:-24}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL (kill): $*"; exit 1; }

# x[N, 4096] -> linear(4096 -> 4096) -> batch_norm: fold_linear_bn rewrites the weights.
python3 - "$tmp/model" <<'PY'
import json, struct, sys
base = sys.argv[1]
n = 4096
row = struct.pack('<%df' % n, *[((i * 37) % 101 - 50) / 500.0 for i in range(n)])
vec = lambda v: struct.pack('<%df' % n, *([v] * n))
tensors = [("fc.weight", [n, n], row * n), ("fc.bias", [n], vec(0.1)),
           ("bn.weight", [n], vec(1.5)), ("bn.bias", [n], vec(-0.2)),
           ("bn.running_mean", [n], vec(0.3)), ("bn.running_var", [n], vec(2.0))]
header, offset = {}, 0
for name, shape, data in tensors:
    header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(data)]}
    offset += len(data)
h = json.dumps(header).encode()
h += b' ' * (-len(h) % 8)
with open(base + ".safetensors", "wb") as f:
    f.write(struct.pack('<Q', len(h)) + h)
    for _, _, data in tensors:
        f.write(data)
ref = lambda name: {"node": name}
nodes = [{"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": ["N", n], "dtype": "float32"}}]
for name, _, _ in tensors:
    nodes.append({"name": name.replace(".", "_"), "op": "get_attr", "target": name})
nodes += [{"name": "fc", "op": "call_function", "target": "linear",
           "args": [ref("x"), ref("fc_weight"), ref("fc_bias")]},
          {"name": "bn", "op": "call_function", "target": "batch_norm",
           "args": [ref("fc"), ref("bn_running_mean"), ref("bn_running_var"), ref("bn_weight"),
                    ref("bn_bias")], "kwargs": {"training": False, "momentum": 0.1, "eps": 1e-5}},
          {"name": "output", "op": "output", "target": "output", "args": [[ref("bn")]]}]
json.dump({"format": "graft.model", "version": 1, "weights": "model.safetensors", "nodes": nodes},
          open(base + ".json", "w"))
PY
[ -f "$tmp/model.json" ] || fail "could not generate the model"

# The two states a killed run may leave: the previous output (a plain save) and the new one.
"$rewrite" "$tmp/model.json" -o "$tmp/old/out.json" >/dev/null || fail "plain save failed"
"$rewrite" --rules "$src/rules/fold_bn.rules" "$tmp/model.json" -o "$tmp/new/out.json" >/dev/null \
  || fail "rewrite failed"
cmp -s "$tmp/old/out.json" "$tmp/new/out.json" && fail "old and new outputs are the same"

# Which state a directory holds: its out.json must equal one of the two, and so must the
# weights file that out.json names.
state_of() {
  local dir=$1 state
  for state in old new; do
    if cmp -s "$dir/out.json" "$tmp/$state/out.json"; then
      local weights
      weights=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["weights"])' "$dir/out.json")
      cmp -s "$dir/$weights" "$tmp/$state/$weights" || { echo "torn-weights"; return; }
      echo "$state"
      return
    fi
  done
  echo "torn-json"
}

start=$(date +%s%N)
"$rewrite" --rules "$src/rules/fold_bn.rules" "$tmp/model.json" -o "$tmp/time/out.json" >/dev/null
full_ns=$(( $(date +%s%N) - start ))

declare -A seen=([old]=0 [new]=0 [mid-write]=0 [terminated]=0 [left-over]=0)
# One run of rewrite into a copy of the old output, sent signal $2 (KILL or TERM) after $1 ns.
kill_after() {
  local delay_ns=$1 signal=${2:-KILL} pid state status
  rm -rf "$tmp/run" && cp -r "$tmp/old" "$tmp/run"
  "$rewrite" --rules "$src/rules/fold_bn.rules" "$tmp/model.json" -o "$tmp/run/out.json" \
    >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '%d.%09d' $((delay_ns / 1000000000)) $((delay_ns % 1000000000)))"
  kill -"$signal" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  status=$?
  if ls -a "$tmp/run" | grep -q '\.tmp\.'; then
    # SIGTERM (like SIGINT, SIGHUP) runs the cleanup of staged temporaries; SIGKILL cannot.
    [ "$signal" = KILL ] || fail "SIGTERM after $((delay_ns / 1000000)) ms left a temporary file"
    seen[mid-write]=$((seen[mid-write] + 1))
  fi
  [ "$signal" = TERM ] && [ "$status" -eq 143 ] && seen[terminated]=$((seen[terminated] + 1))
  state=$(state_of "$tmp/run")
  case "$state" in
    old | new) seen[$state]=$((seen[$state] + 1)) ;;
    *) fail "a kill after $((delay_ns / 1000000)) ms left a $state output" ;;
  esac
  # Whatever was left must load.
  "$rewrite" print "$tmp/run/out.json" >/dev/null 2>&1 || fail "a kill after $((delay_ns / 1000000)) ms left a model that does not load"
  # Anything else the killed run left (weights not yet named by out.json, a temporary, the
  # lock file with its record) is removed by the next run writing the same output.
  if [ "$(ls -A "$tmp/run" | wc -l)" -gt 2 ]; then
    seen[left-over]=$((seen[left-over] + 1))
    "$rewrite" --rules "$src/rules/fold_bn.rules" "$tmp/model.json" -o "$tmp/run/out.json" \
      >/dev/null 2>&1 || fail "the run after a kill failed"
    [ "$(state_of "$tmp/run")" = new ] && [ "$(ls -A "$tmp/run" | wc -l)" = 2 ] \
      || fail "the run after a kill left $(ls -A "$tmp/run" | tr '\n' ' ')"
  fi
}
# Kill points spread evenly over a whole run (and a little past it).
for ((i = 1; i <= kills; i++)); do
  kill_after $(( full_ns * i * 11 / (10 * kills) )) "$( ((i % 2)) && echo KILL || echo TERM)"
done
# On a loaded machine a run can take much longer than the timed one, so that no kill came
# late enough to leave the new output: then also kill late (or never, in effect) until one does.
for ((late = 2; seen[new] == 0 && late <= 16; late *= 2)); do
  kill_after $(( full_ns * late ))
done
# A SIGTERM sent once a temporary file exists (polled for): the run must die of it, remove the
# temporary and leave the old output or the new one. Inconclusive when the run finished before
# the signal arrived; one conclusive try of eight is required.
term_mid_write() {
  local pid status caught=0 poll
  rm -rf "$tmp/run" && cp -r "$tmp/old" "$tmp/run"
  "$rewrite" --rules "$src/rules/fold_bn.rules" "$tmp/model.json" -o "$tmp/run/out.json" \
    >/dev/null 2>&1 &
  pid=$!
  for ((poll = 0; poll < 200000; poll++)); do
    if compgen -G "$tmp/run/.*.tmp.*" >/dev/null; then
      kill -TERM "$pid" 2>/dev/null
      caught=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
  done
  wait "$pid" 2>/dev/null
  status=$?
  [ "$caught" = 1 ] && [ "$status" -eq 143 ] || return 1
  compgen -G "$tmp/run/.*.tmp.*" >/dev/null && fail "a SIGTERM while a temporary existed left it behind"
  state=$(state_of "$tmp/run")
  case "$state" in
    old | new) ;;
    *) fail "a SIGTERM while a temporary existed left a $state output" ;;
  esac
  return 0
}
conclusive=0
for ((try = 0; try < 8 && conclusive == 0; try++)); do
  term_mid_write && conclusive=1
done
[ "$conclusive" = 1 ] || fail "no SIGTERM landed while a temporary existed in 8 tries"

echo "$kills kills over a ${full_ns:0:-6} ms run: ${seen[old]} left the old output, ${seen[new]} the new one; ${seen[mid-write]} SIGKILLs landed while writing; ${seen[terminated]} SIGTERMs ended a run, leaving no temporary; the next run cleared what ${seen[left-over]} left; a SIGTERM while a temporary existed removed it"
[ "${seen[old]}" -gt 0 ] && [ "${seen[new]}" -gt 0 ] || fail "the kills did not cover both outcomes"
[ "${seen[terminated]}" -gt 0 ] || fail "no SIGTERM ended a run"
echo "ok (kill)"
