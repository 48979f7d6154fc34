#!/usr/bin/env bash
# Here (no GPU): assembles what a CUDA run on the device tool's H200 needs and splits it into one folder per staging
# call (flux2-bench/gpu/README.md, "CUDA"):
#   bash flux2-bench/gpu/cuda-payload.sh KIT_DIR CHECKOUT [CHUNK_MiB]
# KIT_DIR is flux2-bench/gpu/cuda-kit/make-kit.sh's output; CHECKOUT the checkout the device tool sends (the session's
# /work/main), whose .git/info/exclude must ignore /.cuda*/. Needs, built in this worktree: flux2-cli/target/flux2.jar,
# flux2-bench and flux2-testkit's jars; a jlinked JRE as JRE_TAR (default /tmp/jre.tar.xz) and diffusers' src/ at
# 58eb52c as DIFFUSERS_TAR (default /tmp/stage/diffusers-src.tar.gz).
# Writes CHECKOUT/.cuda1 … .cudaN (chunks of the payload with cuda-recv.sh) and CHECKOUT/.cudarun (the run scripts).
set -euo pipefail
kit=$(cd "$1" && pwd); co=$(cd "$2" && pwd); mib=${3:-53}
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p $t/p/kit
cat "$kit"/parts/part.* > $t/p/kit/part.00
cp "$kit/kit.sha256" "$kit/libcufft.so.11" "$kit/stage.sh" $t/p/kit/
cp "${JRE_TAR:-/tmp/jre.tar.xz}" $t/p/jre.tar.xz
cp "${DIFFUSERS_TAR:-/tmp/stage/diffusers-src.tar.gz}" $t/p/diffusers-src.tar.gz
cp "$root/flux2-cli/target/flux2.jar" $t/p/flux2.jar
# no ONNX Runtime natives (the kit's GPU natives are loaded with -Donnxruntime.native.path) and no other platforms'
zip -q -d $t/p/flux2.jar 'ai/onnxruntime/native/*' 'native/lib/linux-aarch64/*' 'native/lib/osx-aarch64/*' \
  'native/lib/win-x86_64/*' 'com/sun/jna/[!l]*' 'org/jline/nativ/*' > /dev/null
cp "$root"/flux2-bench/target/flux2-bench-*-SNAPSHOT.jar $t/p/flux2-bench.jar
cp "$root"/flux2-testkit/target/flux2-testkit-*-SNAPSHOT.jar $t/p/flux2-testkit.jar
(cd $t/p && tar cf $t/payload.tar .)
rm -rf "$co"/.cuda[0-9]* "$co/.cudarun"
(cd $t && split -b ${mib}M -d -a 2 payload.tar chunk.)
n=$(ls $t/chunk.* | wc -l); sum=$(sha256sum $t/payload.tar)
i=1
for c in $t/chunk.*; do
  d="$co/.cuda$i"; mkdir -p "$d"; mv "$c" "$d/"; cp "$here/cuda-recv.sh" "$d/"; echo "$n" > "$d/total"; echo "$sum" > "$d/payload.sha256"
  i=$((i + 1))
done
mkdir -p "$co/.cudarun" && cp "$here/cuda-h200.sh" "$here/imgdiff.py" "$here/peer_step.py" "$co/.cudarun/"
du -sh "$co"/.cuda*
echo "$n staging calls: run 'bash .cudaK/cuda-recv.sh' carrying .cudaK, K = 1 … $n; the last also carries .cudarun"
