#!/usr/bin/env bash
# Java and Node side by side on the timing bundle: whole-process CPU time (user + sys of the process and its
# children, /usr/bin/time) and peak RSS of `flux2 generate` and of the independent Node.js driver (generate.mjs on
# onnxruntime-node, the same ONNX Runtime version), interleaved N times, one generation per process. On demand only:
# not part of ./mvnw verify.
#
#   ./mvnw -B -q -pl flux2-bench,flux2-cli -am package -DskipTests   # the jars
#   (cd flux2-bench/node && npm install)                                  # onnxruntime-node 1.26.0
#   flux2-bench/node/compare.sh [-n 3] [--bundle DIR] [--java-args "--cpu-tuned"] [--node-args "..."]
#
# Both run the same graphs with SEQUENTIAL semantics (--memory sequential), 512x512, 4 steps, ONNX Runtime's
# default threads. Prints one line per run and the CPU ratio Java/Node per pair. Results: target/node-compare/.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
n=3
bundle="$repo/flux2-bench/target/timing-bundle"
java_args=""
node_args=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) n="$2"; shift 2 ;;
    --bundle) bundle="$2"; shift 2 ;;
    --java-args) java_args="$2"; shift 2 ;;
    --node-args) node_args="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

bench_jar="$repo/flux2-bench/target/benchmarks.jar"
for f in "$bench_jar" "$repo/flux2-cli/target/flux2.jar" "$repo/flux2-bench/node/node_modules/onnxruntime-node"; do
  [[ -e "$f" ]] || { echo "missing $f: build the jars and run npm install first (see the header)" >&2; exit 1; }
done
if [[ ! -f "$bundle/flux2-config.json" ]]; then
  echo "writing the timing bundle to $bundle" >&2
  java -cp "$bench_jar" dev.flux2.bench.timing.TimingBundleMain "$bundle" 512 1+1 >&2
fi

out="$repo/flux2-bench/target/node-compare"
mkdir -p "$out"
prompt="a red fox in the snow"
results="$out/results.tsv"
printf 'run\tside\twall_s\tcpu_s\tpeak_rss_mib\tload1\n' > "$results"

measure() { # side run command...
  local side="$1" run="$2"; shift 2
  local tfile="$out/$side-$run.time"
  local load
  load="$(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f '%e %U %S %M' -o "$tfile" "$@" > "$out/$side-$run.log" 2>&1 || {
    echo "$side run $run failed, see $out/$side-$run.log" >&2; exit 1; }
  read -r wall user sys rss < "$tfile"
  local cpu mib
  cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
  mib="$(awk -v r="$rss" 'BEGIN { printf "%d", r / 1024 }')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$side" "$wall" "$cpu" "$mib" "$load" | tee -a "$results"
}

java_run() {
  # shellcheck disable=SC2086
  measure java "$1" "$repo/flux2" generate --model "$bundle" --prompt "$prompt" --seed 42 -W 512 -H 512 \
    --steps 4 --memory sequential --no-progress --output "$out/java-$1.png" $java_args
}
node_run() {
  # shellcheck disable=SC2086
  measure node "$1" node "$repo/flux2-bench/node/generate.mjs" --model "$bundle" --prompt "$prompt" --seed 42 \
    --width 512 --height 512 --steps 4 --output "$out/node-$1.ppm" $node_args
}

echo "date $(date -u +%FT%TZ), $(nproc) CPUs, $(java -version 2>&1 | head -1), node $(node --version)" | tee "$out/machine.txt"
# Unmeasured warm-up at 64x64: the launcher's class-data-sharing archive is written by the first run after a build,
# and Node's and the kernel's file caches are filled, so that no measured run pays a one-time cost.
# (Also derives the CPU-tuned graphs when --java-args asks for them.)
# shellcheck disable=SC2086
"$repo/flux2" generate --model "$bundle" --prompt "$prompt" --seed 1 -W 64 -H 64 --steps 1 --memory sequential \
  --no-progress --output "$out/warmup.png" $java_args > /dev/null
# shellcheck disable=SC2086
node "$repo/flux2-bench/node/generate.mjs" --model "$bundle" --prompt "$prompt" --width 64 --height 64 --steps 1 \
  --output "$out/warmup.ppm" $node_args 2> /dev/null
printf 'run\tside\twall_s\tcpu_s\tpeak_rss_mib\tload1\n'
for ((i = 1; i <= n; i++)); do
  # Alternate which side goes first, so a drift in the machine's load affects both alike.
  if (( i % 2 == 1 )); then java_run "$i"; node_run "$i"; else node_run "$i"; java_run "$i"; fi
done

echo
echo "CPU Java/Node per pair, and peak RSS (MiB):"
awk -F'\t' 'NR > 1 { cpu[$1, $2] = $4; rss[$1, $2] = $5; runs[$1] = 1 }
  END { for (r in runs) printf "  pair %s: cpu ratio %.3f (java %.1f s, node %.1f s), peak rss java %d, node %d\n",
          r, cpu[r, "java"] / cpu[r, "node"], cpu[r, "java"], cpu[r, "node"], rss[r, "java"], rss[r, "node"] }' \
  "$results" | sort
