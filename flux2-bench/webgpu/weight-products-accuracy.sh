#!/bin/bash
# Weight products on WebGPU, accuracy (issue #19): the 5+20-block timing transformer's prediction at 512² and 1024²
# on the CPU with every MatMulNBits at accuracy level 0 (fp32 compute: the reference), then on WebGPU the graph,
# the dequantized graph (fp16 and fp32 products), fused attention and both, each against that reference and timed.
# Run from the repository root with carry [".gpu-attn", ".gl"]: bash .gpu-attn/accuracy-gpu2.sh
set -o pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/g && tar xJf .gpu-attn/jre.tar.xz -C /tmp/g && xz -dc .gpu-attn/libonnxruntime.so.1.xz > /tmp/g/libonnxruntime.so.1 || exit 1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; date -u | tee "$OUT/gpu.txt"
JAVA="/tmp/g/jre-attn/bin/java -Xmx48g -Donnxruntime.native.onnxruntime.path=/tmp/g/libonnxruntime.so.1 -cp .gpu-attn/bench.jar"
timeout 60 $JAVA dev.flux2.bench.attention.MatMulNBitsCheck --provider webgpu --tokens 4608 --k 3072 --n 27648 2>&1 | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-matmulnbits-fp32.txt"
J="$JAVA dev.flux2.bench.attention.FusedAttentionStepComparison --blocks 5+20 --dir /tmp/g/timing"
for s in 512 1024; do
  timeout ${CPU_S:-150} $J --provider cpu --threads 16 --size $s --pairs 0 --fusions none --acc0 --save /tmp/g/ref 2>&1 | grep -v 'W:onnxruntime' | tee -a "$OUT/cpu-reference.txt"
  date -u | tee -a "$OUT/gpu.txt"
done
for s in $(ls /tmp/g/ref | sed -n 's/graph-\([0-9]*\)\.f32/\1/p' | sort -n); do
  timeout ${GPU_S:-120} $J --provider webgpu --size $s --pairs ${PAIRS:-1} --fusions fp32 --dequantized --against /tmp/g/ref 2>&1 | grep -v 'W:onnxruntime' | tee -a "$OUT/webgpu-against-cpu-reference.txt"
  date -u | tee -a "$OUT/gpu.txt"
done
exit 0
