#!/usr/bin/env bash
# GPU machine side, every staging call (flux2-bench/gpu/README.md, "CUDA"): moves the payload chunks carried in this
# folder to /root/pl; once all TOTAL are there (and their sha256 matches), unpacks the payload into /root/in (the
# cuda-kit, a jlinked JRE, the jars, diffusers' source) and runs the kit's stage.sh, which leaves ONNX Runtime's GPU
# natives in /root/cuda/ortgpu and the CUDA 12 libraries in /root/cuda/lib. /root lasts only while the machine stays
# warm (about 30 s without a call).
set -u
D=$(cd "$(dirname "$0")" && pwd)
mkdir -p /root/pl
for f in "$D"/chunk.*; do [ -f "$f" ] && mv -f "$f" /root/pl/; done
total=$(cat "$D/total")
n=$(ls /root/pl | wc -l)
echo "payload chunks on the machine: $n of $total"
if [[ ! -f /root/in/.done && $n == "$total" ]]; then
  want=$(awk '{print $1}' "$D/payload.sha256")
  got=$(cat /root/pl/chunk.* | sha256sum | awk '{print $1}')
  if [[ $want != "$got" ]]; then echo "payload sha256 mismatch: $got, expected $want"; exit 3; fi
  rm -rf /root/in && mkdir -p /root/in && cat /root/pl/chunk.* | tar xf - -C /root/in && rm -rf /root/pl
  bash /root/in/kit/stage.sh | tee /root/in/stage.out
  tar xJf /root/in/jre.tar.xz -C /root
  touch /root/in/.done
  echo "payload unpacked: $(ls /root/in | tr '\n' ' ')"
fi
