#!/usr/bin/env bash
# The WebGPU provider on an NVIDIA GPU through Vulkan (the device tool's H200, no Java there): every case is generated
# with --provider cpu and --provider webgpu on synthetic bundles written by flux2-testkit, and the images compared
# pixel by pixel (imgdiff.py). Needs, in KIT (default .gpu-webgpu): jre.tar.xz (a jlinked JRE), flux2.jar (the CLI),
# testkit.jar, libonnxruntime.so.1.xz (onnxruntime-node 1.26.0's linux-x64 library), this script and imgdiff.py;
# the Vulkan loader's deb in .gl (README of the device tool). Writes everything to $OUT (log.txt, diff.txt).
set -u
KIT="${KIT:-.gpu-webgpu}"
KITDIR="$(cd "$KIT" && pwd)"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
if [ "${SKIP_GL:-0}" != 1 ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
W=/tmp/w; rm -rf $W; mkdir -p $W/lib $W/xdg; chmod 700 $W/xdg
tar xJf "$KITDIR/jre.tar.xz" -C $W
xz -dc "$KITDIR/libonnxruntime.so.1.xz" > $W/lib/libonnxruntime.so.1
cp "$KITDIR/flux2.jar" "$KITDIR/testkit.jar" $W/
export XDG_RUNTIME_DIR=$W/xdg FLUX2_HOME=$W/home
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
J="$W/jre/bin/java"
F="$J -jar $W/flux2.jar"
date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; uname -m
echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
$F runtime install webgpu --from $W/lib; echo "install rc=$?"
cd $W
$J -cp testkit.jar:flux2.jar dev.flux2.testkit.SyntheticBundleMain seed --size 256x256 --fused engine >/dev/null
$J -cp testkit.jar:flux2.jar dev.flux2.testkit.SyntheticBundleMain hlhc --size 256x256 --hlhc >/dev/null
$F info --model seed --provider webgpu | grep -E 'Ort |Webgpu'; echo "info rc=$?"
PAIRS=()
# name | model | extra options
run_case() {
  local name=$1 model=$2; shift 2
  for p in cpu webgpu; do
    local t0; t0=$(date +%s%N)
    $F generate --model "$model" --prompt "a red fox in the snow" --seed 7 --no-progress --provider $p \
      -o "$W/$name-$p.png" "$@" > "$W/$name-$p.log" 2>&1
    local rc=$?
    local errs; errs=$(grep -c -i -E 'validation failed|device lost|device error|SIGSEGV|fatal error|hs_err' "$W/$name-$p.log")
    echo "case $name $p rc=$rc device_errors=$errs wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms $(grep -o 'denoise=[^ ]*' "$W/$name-$p.log" | head -1)"
    [ $rc -ne 0 ] && tail -3 "$W/$name-$p.log" | cut -c1-600
  done
  if [ -f "$W/$name-cpu.png" ] && [ -f "$W/$name-webgpu.png" ]; then PAIRS+=("$W/$name-cpu.png" "$W/$name-webgpu.png"); fi
  for k in 0 1 2; do
    if [ -f "$W/$name-cpu-$k.png" ]; then PAIRS+=("$W/$name-cpu-$k.png" "$W/$name-webgpu-$k.png"); fi
  done
}
run_case fused seed
run_case perstep seed --no-fused
if [ "${QUICK:-0}" != 1 ]; then
run_case size128 seed -W 128 -H 128
run_case size512x384 seed -W 512 -H 384 --no-fused
run_case img2img seed --init-image "$W/fused-cpu.png" --strength 0.75
run_case refs seed --reference "$W/fused-cpu.png" --reference "$W/perstep-cpu.png"
run_case three seed --num-images 3 --no-fused
run_case hlhc hlhc
run_case hlhc-img2img hlhc --init-image "$W/fused-cpu.png" --strength 0.75
run_case hlhc1024 hlhc -W 1024 -H 1024
fi
python3 "$KITDIR/imgdiff.py" "${PAIRS[@]}" | tee "$OUT/diff.txt"
# Failure cases: no adapter (no Vulkan driver), runtime missing, corrupt.
VK_DRIVER_FILES=/nonexistent.json $F generate --model seed --prompt x --seed 1 --no-progress --provider webgpu -o $W/x.png > $W/noadapter.log 2>&1
echo "no-adapter rc=$? sigsegv=$(grep -c SIGSEGV $W/noadapter.log)"; tail -1 $W/noadapter.log | cut -c1-400
FLUX2_HOME=$W/empty $F generate --model seed --prompt x --seed 1 --no-progress --provider webgpu -o $W/x.png > $W/missing.log 2>&1
echo "missing rc=$?"; tail -1 $W/missing.log | cut -c1-400
cp -r $W/home $W/bad; printf 'x' | dd of=$W/bad/runtime/1.26.0/linux-x64/libonnxruntime.so.1 bs=1 seek=1000 conv=notrunc 2>/dev/null
FLUX2_HOME=$W/bad $F generate --model seed --prompt x --seed 1 --no-progress --provider webgpu -o $W/x.png > $W/corrupt.log 2>&1
echo "corrupt rc=$?"; tail -1 $W/corrupt.log | cut -c1-400
ls $W/hs_err* 2>/dev/null && echo "JVM CRASH FILES PRESENT"
cp $W/fused-webgpu.png $W/img2img-webgpu.png $W/hlhc-webgpu.png "$OUT/" 2>/dev/null
date -u
