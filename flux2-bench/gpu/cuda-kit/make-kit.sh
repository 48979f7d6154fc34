#!/usr/bin/env bash
# Builds the CUDA kit for the GPU machine lent for measurements (NVIDIA H200, CUDA 13 driver and libraries, no
# network): ONNX Runtime's CUDA provider as Maven ships it (com.microsoft.onnxruntime:onnxruntime_gpu, linked
# against CUDA 12) plus the CUDA 12 libraries it links that the GPU machine lacks, taken from Debian trixie's
# non-free packages (CUDA 12.4). Measuring only: a user installs CUDA 12 and cuDNN 9 as ONNX Runtime documents.
#   bash make-kit.sh OUT_DIR [ORT_VERSION] [PART_MiB]
# Writes OUT_DIR/parts/part.NN (each <= PART_MiB, default 40: the project tree travels too, 64 MiB
# in all per run), OUT_DIR/kit.sha256, and OUT_DIR/libcufft.so.11 (a stand-in: the FLUX.2 graphs use no FFT; the
# GPU machine has only cuFFT 12). onnxruntime_gpu 1.26.0 resolves against CUDA 12.4; 1.28+ needs cudart >= 12.5 (1.27 also links libnvrtc.so.12),
# which Debian does not have.
set -euo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd); v=${2:-1.26.0}; part=${3:-40}
here=$(cd "$(dirname "$0")" && pwd); t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# 1. ONNX Runtime's GPU natives (the whole linux-x64 folder: core, JNI, shared and CUDA providers)
"${MVN:-mvn}" -q -B dependency:get -Dartifact=com.microsoft.onnxruntime:onnxruntime_gpu:$v -Dtransitive=false >/dev/null
jar=$HOME/.m2/repository/com/microsoft/onnxruntime/onnxruntime_gpu/$v/onnxruntime_gpu-$v.jar
mkdir -p $t/k && (cd $t && unzip -q "$jar" 'ai/onnxruntime/native/linux-x64/*' && mv ai/onnxruntime/native/linux-x64 ortgpu \
  && rm -f ortgpu/libonnxruntime_providers_tensorrt.so && tar cf - ortgpu | xz -6 -T0 > k/ortgpu.tar.xz)
# 2. Debian trixie's CUDA 12.4 runtime, cuBLAS and cuBLASLt (non-free), with a private apt state; the mirror is the
#    one this machine's own sources name
mirror=$(grep -h -m1 -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v -- '-security' | head -n 1 | awk '{print $2}')
mkdir -p $t/apt/etc $t/apt/lists/partial $t/apt/cache/archives/partial
printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" > $t/apt/etc/trixie.sources
o="-oDir::Etc::SourceList=/dev/null -oDir::Etc::SourceParts=$t/apt/etc -oDir::State::Lists=$t/apt/lists -oDir::Cache=$t/apt/cache -oAPT::Architecture=amd64"
apt-get $o update -qq && (cd $t/k && apt-get $o download libcudart12 libcublas12 libcublaslt12 2>/dev/null)
# 3. the kit, its hash and its parts
(cd $t/k && tar cf $out/kit.tar ortgpu.tar.xz *.deb)
(cd $out && sha256sum kit.tar > kit.sha256 && rm -rf parts && mkdir parts && split -b ${part}M -d -a 2 kit.tar parts/part. && rm kit.tar)
gcc -shared -fPIC -O1 -Wl,-soname,libcufft.so.11 -Wl,--version-script=<(printf 'libcufft.so.11 { global: *; };\n') \
  -o $out/libcufft.so.11 $here/cufft_stub.c
cp $here/stage.sh $out/
echo "kit: $(ls $out/parts | wc -l) parts of <= ${part} MiB in $out/parts; carry them one per call with stage.sh (see README.md)"
