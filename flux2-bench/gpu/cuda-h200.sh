#!/usr/bin/env bash
# ONNX Runtime's CUDA provider on the device tool's H200 (flux2-bench/gpu/README.md, "CUDA"). Needs the payload that
# cuda-recv.sh unpacked into /root/in (kit staged into /root/cuda, JRE in /root/jre, flux2.jar, flux2-bench.jar,
# flux2-testkit.jar, diffusers-src.tar.gz). Sections, in the order given on the command line:
#   correctness  miniature synthetic bundles (seed and hlhc layouts): every case with --provider cpu and cuda, the
#                images compared (imgdiff.py); no crash at exit
#   steps        one denoiser step per graph form and TF32 setting at 512² and 1024² (CudaStepComparison)
#   accuracy     the same forms at 1 + 1 blocks against the seed graph on the CPU provider at 512²
#   profile      ONNX Runtime's profile per operator type of the seed and fp16-attention forms at 1024²
#                (CUDA_LAUNCH_BLOCKING=1)
#   peer         diffusers' Flux2Transformer2DModel, bf16, one step at 512² and 1024² (peer_step.py)
#   fresh        the first image of a fresh `flux2 generate --provider cuda` process on a timing bundle
#   runtime      flux2 runtime install cuda --from the kit's natives, flux2 info --provider cuda with and without the
#                CUDA 12 libraries, generate through the installed runtime; no library, no GPU, corrupt runtime
#   fullsize     the full-size synthetic bundle: warm-pipeline images, fresh process, tokenizing, memory
#                (FRESH_RUNS: size:tag pairs; a tag heuristic or exhaustive sets --cudnn-conv-algo-search)
#   checked      the product as a user meets it, the library check on: flux2 info --provider cuda, one
#                generate per provider on the miniature seed bundle, the images compared
# Writes the log and results to $OUT. Device memory in use is sampled with nvidia-smi every 100 ms per section.
set -u
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
HERE=$(cd "$(dirname "$0")" && pwd)
exec > >(tee -a "$OUT/log.txt") 2>&1
IN=/root/in; W=/root/w; mkdir -p $W
J=/root/jre/bin/java
eval "export $(grep '^LD_LIBRARY_PATH=' $IN/stage.out | tail -1)"
NATIVE=/root/cuda/ortgpu
JO="-Xmx24g -Donnxruntime.native.path=$NATIVE"
CP="$IN/flux2.jar:$IN/flux2-bench.jar:$IN/flux2-testkit.jar"
F="$J $JO -jar $IN/flux2.jar"
export FLUX2_HOME=$W/home
echo "== $(date -u) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader) $(uname -m) cores=$(nproc)"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

MEMPID=""
mem_start() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$W/mem-$1.txt" 2>/dev/null & MEMPID=$!; }
mem_stop() { kill "$MEMPID" 2>/dev/null; wait "$MEMPID" 2>/dev/null; echo "peak device memory in use during $1: $(sort -n "$W/mem-$1.txt" | tail -1) MiB (idle before: $(head -1 "$W/mem-$1.txt") MiB)"; }

correctness() {
  echo "== correctness $(date -u +%T)"
  cd $W
  $J -cp "$CP" dev.flux2.testkit.SyntheticBundleMain seed --size 256x256 --fused engine > /dev/null
  $J -cp "$CP" dev.flux2.testkit.SyntheticBundleMain hlhc --size 256x256 --hlhc > /dev/null
  python3 -c "
from PIL import Image, ImageDraw
m = Image.new('L', (256, 256), 0); ImageDraw.Draw(m).rectangle([64, 64, 191, 191], fill=255); m.save('$W/mask.png')"
  PAIRS=()
  run_case() {
    local name=$1 model=$2; shift 2
    for p in cpu cuda; do
      local t0; t0=$(date +%s%N)
      $F generate --model "$model" --prompt "a red fox in the snow" --seed 7 --no-progress --provider $p \
        -o "$W/$name-$p.png" "$@" > "$W/$name-$p.log" 2>&1
      local rc=$?
      local errs; errs=$(grep -c -i -E 'SIGSEGV|fatal error|hs_err|CUDA failure|CUDNN failure|CUBLAS failure' "$W/$name-$p.log")
      echo "case $name $p rc=$rc errors=$errs wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms $(grep -o 'timings: .*' "$W/$name-$p.log" | head -1)"
      [ $rc -ne 0 ] && tail -3 "$W/$name-$p.log" | cut -c1-600
    done
    if [ -f "$W/$name-cpu.png" ]; then PAIRS+=("$W/$name-cpu.png" "$W/$name-cuda.png"); fi
    for k in 0 1 2; do
      if [ -f "$W/$name-cpu-$k.png" ]; then PAIRS+=("$W/$name-cpu-$k.png" "$W/$name-cuda-$k.png"); fi
    done
  }
  mem_start correctness
  run_case fused seed
  run_case perstep seed --no-fused
  run_case perstep-mha seed --no-fused --attention fused
  run_case perstep-graph seed --no-fused --attention graph
  run_case size512x384 seed -W 512 -H 384 --no-fused
  run_case img2img seed --init-image "$W/fused-cpu.png" --strength 0.75
  run_case inpaint seed --init-image "$W/fused-cpu.png" --mask "$W/mask.png" --no-fused
  run_case refs seed --reference "$W/fused-cpu.png" --reference "$W/perstep-cpu.png"
  run_case two seed --num-images 2 --no-fused
  run_case hlhc hlhc
  run_case hlhc-img2img hlhc --init-image "$W/fused-cpu.png" --strength 0.75
  run_case hlhc1024 hlhc -W 1024 -H 1024
  mem_stop correctness
  python3 "$HERE/imgdiff.py" "${PAIRS[@]}" | tee "$OUT/diff.txt"
  ls $W/hs_err* 2>/dev/null && echo "JVM CRASH FILES PRESENT"
  cd - > /dev/null
}

steps() {
  echo "== steps $(date -u +%T)"
  mem_start steps
  $J $JO -cp "$CP" dev.flux2.bench.cuda.CudaStepComparison --dir $W/step --size "${STEP_SIZES:-512,1024}" \
    --forms "${STEP_FORMS:-seed,seed-notf32,mha32,mha16,mha16-notf32}" --rounds "${STEP_ROUNDS:-10}" \
    ${STEP_EXTRA:-} 2>&1 | grep -v '^\[main\] INFO'
  mem_stop steps
}

accuracy() {
  echo "== accuracy $(date -u +%T): klein width, 1 double + 1 single block, every form against the CPU provider"
  $J $JO -cp "$CP" dev.flux2.bench.cuda.CudaStepComparison --dir $W/step11 --blocks 1+1 --size 512,1024 \
    --forms "${STEP_FORMS:-seed,seed-notf32,mha32,mha16,mha16-notf32}" --rounds 3 --cpu-reference 2>&1 \
    | grep -v '^\[main\] INFO'
}

profile() {
  echo "== profile $(date -u +%T) (CUDA_LAUNCH_BLOCKING=1: host node times = kernel times + launch)"
  CUDA_LAUNCH_BLOCKING=1 $J $JO -cp "$CP" dev.flux2.bench.cuda.CudaStepComparison --dir $W/step --size 1024 \
    --forms "${PROFILE_FORMS:-seed,mha16}" --rounds 1 --profile 2>&1 | grep -v '^\[main\] INFO'
}

peer() {
  echo "== peer $(date -u +%T)"
  mkdir -p /root/dsrc && tar xzf $IN/diffusers-src.tar.gz -C /root/dsrc
  mem_start peer
  PYTHONUNBUFFERED=1 python3 "$HERE/peer_step.py" /root/dsrc/src 2>&1 | grep -v Warning
  mem_stop peer
}

fresh() {
  echo "== fresh $(date -u +%T)"
  cd $W
  [ -d timing ] || $J -cp "$CP" dev.flux2.bench.timing.TimingBundleMain timing 512 5+20 > /dev/null
  for s in 512 1024; do
    mem_start fresh$s
    t0=$(date +%s%N)
    $F generate --model timing --prompt "a red fox in the snow" --seed 7 --no-progress --provider cuda \
      -W $s -H $s -o "$W/timing-$s.png" > "$W/fresh-$s.log" 2>&1
    echo "fresh process timing bundle ${s}² rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms $(grep -o 'timings: .*' "$W/fresh-$s.log")"
    mem_stop fresh$s
  done
  cd - > /dev/null
}

runtime() {
  echo "== runtime $(date -u +%T): flux2 runtime install cuda, the library check, the installed runtime used"
  local FR="$J -Xmx8g -jar $IN/flux2.jar"   # no -Donnxruntime.native.path: the product chooses the library
  cd $W
  [ -d seed ] || $J -cp "$CP" dev.flux2.testkit.SyntheticBundleMain seed --size 256x256 --fused engine > /dev/null
  FLUX2_HOME=$W/rt $FR runtime install cuda --from $NATIVE; echo "install rc=$?"
  FLUX2_HOME=$W/rt $FR runtime path cuda; echo "path rc=$?"
  FLUX2_HOME=$W/rt $FR info --model seed --provider cuda; echo "info rc=$?"
  env -u LD_LIBRARY_PATH FLUX2_HOME=$W/rt $FR info --model seed --provider cuda 2>&1 | cut -c1-1500
  echo "info without the kit's CUDA 12 libraries on the loader's path rc=${PIPESTATUS[0]}"
  FLUX2_HOME=$W/rt $FR generate --model seed --prompt "a red fox in the snow" --seed 7 --no-progress --provider cuda \
    -o $W/rt-cuda.png > $W/rt-gen.log 2>&1; echo "generate through the installed runtime rc=$? $(grep -o 'timings: .*' $W/rt-gen.log)"
  [ -f $W/fused-cpu.png ] && python3 "$HERE/imgdiff.py" $W/fused-cpu.png $W/rt-cuda.png
  env -u LD_LIBRARY_PATH FLUX2_HOME=$W/rt $FR generate --model seed --prompt x --seed 1 --no-progress --provider cuda \
    -o $W/x.png > $W/rt-nolib.log 2>&1; echo "generate without the CUDA 12 libraries rc=$? sigsegv=$(grep -c SIGSEGV $W/rt-nolib.log)"
  tail -2 $W/rt-nolib.log | cut -c1-700
  CUDA_VISIBLE_DEVICES= FLUX2_HOME=$W/rt $FR generate --model seed --prompt x --seed 1 --no-progress --provider cuda \
    -o $W/x.png > $W/rt-nogpu.log 2>&1; echo "generate with no visible GPU rc=$? sigsegv=$(grep -c SIGSEGV $W/rt-nogpu.log)"
  tail -2 $W/rt-nogpu.log | cut -c1-700
  cp -r $W/rt $W/rtbad && f=$(ls $W/rtbad/runtime/*/*-cuda/libonnxruntime_providers_cuda.so) \
    && printf 'x' | dd of="$f" bs=1 seek=100000 conv=notrunc 2>/dev/null
  FLUX2_HOME=$W/rtbad $FR generate --model seed --prompt x --seed 1 --no-progress --provider cuda -o $W/x.png \
    > $W/rt-bad.log 2>&1; echo "corrupt runtime rc=$?"; tail -1 $W/rt-bad.log | cut -c1-500
  FLUX2_HOME=$W/rtbad $FR runtime install cuda --from $NATIVE > /dev/null 2>&1; echo "repair rc=$?"
  ls $W/hs_err* 2>/dev/null && echo "JVM CRASH FILES PRESENT"
  cd - > /dev/null
}

fullsize() {
  echo "== fullsize $(date -u +%T)"
  cd $W
  if [ ! -d full ]; then
    t0=$(date +%s%N)
    $J -Xmx24g -cp "$CP" dev.flux2.testkit.timing.FullSizeBundleMain full --size 512x512 2>&1 | grep -v '^\[main\] INFO'
    echo "written in $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(du -sh full | cut -f1)"
  fi
  # fresh processes: the first derives the CUDA graph form into full/.flux2-derived, the next ones find it
  for run in ${FRESH_RUNS:-512:first 512:second 1024:first 1024:heuristic}; do
    s=${run%%:*}; tag=${run##*:}; extra=""
    case $tag in heuristic|exhaustive) extra="--cudnn-conv-algo-search $tag" ;; esac
    mem_start fresh-$s-$tag
    t0=$(date +%s%N)
    echo "+ flux2 generate --model full --provider cuda -W $s -H $s $extra ${GEN_OPTS:-}"
    $F generate --model full --prompt "a red fox in the snow" --seed 7 --no-progress --provider cuda \
      -W $s -H $s -o "$W/full-$s-$tag.png" $extra ${GEN_OPTS:-} > "$W/freshfull-$s-$tag.log" 2>&1
    echo "fresh process ($tag at this size) full-size bundle ${s}² rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms $(grep -o 'timings: .*' "$W/freshfull-$s-$tag.log")"
    [ -f "$W/full-$s-$tag.png" ] || tail -3 "$W/freshfull-$s-$tag.log"
    mem_stop fresh-$s-$tag
  done
  if [ -f "$W/full-1024-default.png" ] && [ -f "$W/full-1024-exhaustive.png" ]; then
    echo "the default (heuristic) 1024² image against the exhaustive search's:"
    python3 "$HERE/imgdiff.py" "$W/full-1024-default.png" "$W/full-1024-exhaustive.png"
  fi
  mem_start pipeline
  $J $JO -cp "$CP" dev.flux2.bench.cuda.CudaPipelineBench --model full --size 512,1024 --images "${IMAGES:-5}" \
    ${PIPE_OPTS:-} 2>&1 | grep -v -E '^\[main\] INFO|VerifyEachNodeIsAssignedToAnEp|CleanUnusedInitializers'
  mem_stop pipeline
  if [ -n "${PIPE_COMPARE:-}" ]; then
    $J $JO -cp "$CP" dev.flux2.bench.cuda.CudaPipelineBench --model full --size 512,1024 --images 3 $PIPE_COMPARE 2>&1 \
      | grep -v -E '^\[main\] INFO|VerifyEachNodeIsAssignedToAnEp|CleanUnusedInitializers'
  fi
  cd - > /dev/null
}

checked() {
  echo "== checked $(date -u +%T): the library check on (FLUX2_CUDA_LIBRARY_CHECK=${FLUX2_CUDA_LIBRARY_CHECK:-unset})"
  cd $W
  [ -d seed ] || $J -cp "$CP" dev.flux2.testkit.SyntheticBundleMain seed --size 256x256 --fused engine > /dev/null
  echo "the driver's library: $(ls -l /lib/libcuda.so.1 2>&1) -> $(readlink -f /lib/libcuda.so.1)"
  echo "+ flux2 info --model seed --provider cuda"
  $F info --model seed --provider cuda > "$W/checked-info.log" 2>&1; echo "info rc=$?"
  cut -c1-1500 "$W/checked-info.log"
  if grep -q "cannot load" "$W/checked-info.log"; then
    echo "THE LIBRARY CHECK REFUSED THIS MACHINE: the next sections run with FLUX2_CUDA_LIBRARY_CHECK=off"
    export FLUX2_CUDA_LIBRARY_CHECK=off
  fi
  for p in cpu cuda; do
    echo "+ flux2 generate --model seed --prompt 'a red fox in the snow' --seed 7 --provider $p"
    $F generate --model seed --prompt "a red fox in the snow" --seed 7 --no-progress --provider $p \
      -o "$W/checked-$p.png" > "$W/checked-$p.log" 2>&1
    echo "generate $p rc=$? $(grep -o 'timings: .*' "$W/checked-$p.log")"
    [ -f "$W/checked-$p.png" ] || tail -3 "$W/checked-$p.log" | cut -c1-800
  done
  [ -f "$W/checked-cuda.png" ] && python3 "$HERE/imgdiff.py" "$W/checked-cpu.png" "$W/checked-cuda.png"
  ls $W/hs_err* 2>/dev/null && echo "JVM CRASH FILES PRESENT"
  cd - > /dev/null
}

for section in "$@"; do "$section"; done
echo "== done $(date -u)"
