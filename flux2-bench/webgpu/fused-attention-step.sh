#!/bin/bash
# WebGPU step of the klein-architecture timing transformer (5 double + 20 single blocks), graph vs fused attention.
# Run on the device machine from the repository root with carry [".gpu-attn", ".gl"]: bash .gpu-attn/run.sh
#
# .gpu-attn/ (ignored by git, under 40 MiB) holds, prepared on an x86-64 Linux machine (docs/fused-attention.md):
#   bench.jar              flux2-bench/target/benchmarks.jar without other platforms' natives and without ORT's own
#                          libonnxruntime.so (zip -d bench.jar 'ai/onnxruntime/native/osx-*' ... ; the JNI library stays)
#   jre.tar.xz             jlink --add-modules java.base,java.logging,java.management,jdk.management,jdk.unsupported,
#                          java.xml,java.naming,java.sql --compress=0 --strip-debug --output jre-attn, tar | xz
#   libonnxruntime.so.1.xz onnxruntime-node 1.26.0's package/bin/napi-v6/linux/x64/libonnxruntime.so.1 (WebGPU built in;
#                          from the npm client's `npm pack onnxruntime-node@1.26.0`), xz
#   run.sh                 this file
# .gl/ holds the Vulkan loader's .deb (libvulkan1), which Dawn needs.
# Environment: SIZES (512,1024), PAIRS (3), BLOCKS (5+20), PROFILE (set for ONNX Runtime's profile of one 1024² step).
set -o pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/g && tar xJf .gpu-attn/jre.tar.xz -C /tmp/g && xz -dc .gpu-attn/libonnxruntime.so.1.xz > /tmp/g/libonnxruntime.so.1 || exit 1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
J="/tmp/g/jre-attn/bin/java -Xmx48g -Donnxruntime.native.onnxruntime.path=/tmp/g/libonnxruntime.so.1 -cp .gpu-attn/bench.jar dev.flux2.bench.attention.FusedAttentionStepComparison --provider webgpu --blocks ${BLOCKS:-5+20} --dir /tmp/g/timing"
$J --size ${SIZES:-512,1024} --pairs ${PAIRS:-3} 2>&1 | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-steps.txt"
[ -n "$PROFILE" ] && $J --size 1024 --pairs 1 --profile 2>&1 | grep -v 'W:onnxruntime' | tee "$OUT/webgpu-profile.txt"
exit 0
