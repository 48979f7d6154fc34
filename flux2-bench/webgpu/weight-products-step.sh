#!/bin/bash
# Weight products on WebGPU (issue #19): MatMulNBitsCheck with the in-graph dequantization, then the 5+20-block timing
# transformer step at block 16: graph, graph + dequantized weights, fused attention, both; then a profiled 1024² step.
# Run from the repository root with carry [".gpu-attn", ".gl"] (the kit of fused-attention-step.sh, this file copied
# into .gpu-attn/): bash .gpu-attn/weight-products-step.sh. Output under $OUT: docs/fused-attention.md §8.
set -o pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/g && tar xJf .gpu-attn/jre.tar.xz -C /tmp/g && xz -dc .gpu-attn/libonnxruntime.so.1.xz > /tmp/g/libonnxruntime.so.1 || exit 1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"; date -u | tee -a "$OUT/gpu.txt"
JAVA="/tmp/g/jre-attn/bin/java -Xmx48g -Donnxruntime.native.onnxruntime.path=/tmp/g/libonnxruntime.so.1 -cp .gpu-attn/bench.jar"
M="$JAVA dev.flux2.bench.attention.MatMulNBitsCheck --provider webgpu --tokens 4608 --k 3072"
(timeout 100 $M --n 27648; timeout 60 $M --n 3072) 2>&1 | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-matmulnbits-dq.txt"
date -u | tee -a "$OUT/gpu.txt"
J="$JAVA dev.flux2.bench.attention.FusedAttentionStepComparison --provider webgpu --blocks 5+20 --dir /tmp/g/timing --fusions fp32 --dequantized"
timeout ${STEP_S:-260} $J --size 512,1024 --pairs ${PAIRS:-2} 2>&1 | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-steps-dq.txt"
date -u | tee -a "$OUT/gpu.txt"
if [ -n "${PROFILE:-1}" ]; then
  timeout ${PROF_S:-150} $J --size 1024 --pairs 1 --profile 2>&1 | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-profile-dq-1024.txt"
fi
nvidia-smi --query-gpu=memory.used --format=csv | tee -a "$OUT/gpu.txt"; date -u | tee -a "$OUT/gpu.txt"
exit 0
