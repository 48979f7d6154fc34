#!/bin/bash
# WebGPU on the device machine: one attention (graph vs each fused layout, error against a double-precision
# computation), then the step of the klein-architecture timing transformer (5 double + 20 single blocks), graph vs
# fused attention, then ONNX Runtime's profile of one 1024² step.
# Run from the repository root with carry [".gpu-attn", ".gl"]: bash .gpu-attn/run.sh
#
# .gpu-attn/ (ignored by git, under 40 MiB) holds, prepared on an x86-64 Linux machine (docs/fused-attention.md §6):
#   bench.jar              flux2-bench/target/benchmarks.jar without other platforms' natives and without ORT's own
#                          libonnxruntime.so (zip -d bench.jar 'native/lib/*' 'ai/onnxruntime/native/linux-aarch64/*'
#                          'ai/onnxruntime/native/osx-*' 'ai/onnxruntime/native/win-*'
#                          'ai/onnxruntime/native/linux-x64/libonnxruntime.so'; the JNI library stays)
#   jre.tar.xz             jlink --add-modules java.base,java.logging,java.management,jdk.management,jdk.unsupported,
#                          java.xml,java.naming,java.sql --compress=0 --strip-debug --output jre-attn, tar | xz
#   libonnxruntime.so.1.xz onnxruntime-node 1.26.0's package/bin/napi-v6/linux/x64/libonnxruntime.so.1 (WebGPU built in;
#                          from the npm client's `npm pack onnxruntime-node@1.26.0`), xz
#   run.sh                 this file
# .gl/ holds the Vulkan loader's and GLVND's .deb files (libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0
# libgles2), which Dawn needs.
# Environment: SIZES (512,1024), PAIRS (3), BLOCKS (5+20), FUSIONS (fp32; fp32,fp16 compares both MHA precisions), PROFILE (1: profile one 1024²
# step; empty: none), SINGLE (1: the one-attention check first).
set -o pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/g && tar xJf .gpu-attn/jre.tar.xz -C /tmp/g && xz -dc .gpu-attn/libonnxruntime.so.1.xz > /tmp/g/libonnxruntime.so.1 || exit 1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"; date -u | tee -a "$OUT/gpu.txt"
JAVA="/tmp/g/jre-attn/bin/java -Xmx48g -Donnxruntime.native.onnxruntime.path=/tmp/g/libonnxruntime.so.1 -cp .gpu-attn/bench.jar"
if [ -n "${SINGLE:-1}" ]; then
  timeout 120 $JAVA dev.flux2.bench.attention.AttentionAccuracyCheck --provider webgpu --tokens 1536,4608 --runs 5 2>&1 \
    | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-one-attention.txt"
fi
J="$JAVA dev.flux2.bench.attention.FusedAttentionStepComparison --provider webgpu --blocks ${BLOCKS:-5+20} --dir /tmp/g/timing"
timeout 400 $J --size ${SIZES:-512,1024} --pairs ${PAIRS:-3} --fusions ${FUSIONS:-fp32} 2>&1 | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-steps.txt"
if [ -n "${PROFILE:-1}" ]; then
  timeout 150 $J --size 1024 --pairs 1 --fusions fp32 --profile 2>&1 | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-profile.txt"
  for p in /tmp/g/timing/graph*.json /tmp/g/timing/bsnh*.json; do [ -f "$p" ] && xz -c "$p" > "$OUT/$(basename "$p").xz"; done
fi
date -u | tee -a "$OUT/gpu.txt"
exit 0
