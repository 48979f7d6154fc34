"""Writes the tiny klein transformer of LoraGraphTest and diffusers' own predictions with LoRAs on it.

    PYTHONPATH=<diffusers @58eb52c>/src python make_tiny_reference.py OUT_DIR

A random-weight Flux2Transformer2DModel (2 double + 2 single blocks, 2 heads of 16, inner 32, joint_attention_dim 24,
mlp_ratio 3) is exported with torch.onnx's TorchScript exporter (opset 17; RMSNorm written as its formula, which that
exporter needs; attention becomes MatMul/Softmax/MatMul as in the real exports) with hlhc's input names. Every node,
initializer and intermediate value is then renamed n0…, w0…, v0… (the real exports name them /model/MatMul_12 and
the like, which says nothing about the layer): LoRA application must find the layers by structure.
Next to it, with the same weights and inputs, diffusers + PEFT compute:
the tensors of reference.safetensors (float32; the ids stored as float32 values, fed as int64):
  hidden_states, encoder_hidden_states, timestep, img_ids, txt_ids   the inputs
  base                          the prediction without LoRA
  diffusers_all, bfl, kohya     with each LoRA file at scale 1 (diffusers' load_lora_weights, all three layouts)
  stack                         two adapters as set_adapters(["diffusers_all", "kohya"], [0.7, -0.4])
  scaled                        diffusers_all at scale 0.35
LoRA files (diffusers names on every linear; BFL names with fused qkv; kohya with alphas) are written with the
reference safetensors writer.
"""
import json, os, sys
import numpy as np
import torch
import onnx
from safetensors.numpy import save_file
from diffusers import Flux2Transformer2DModel, Flux2KleinPipeline
import diffusers.models.normalization as dn
import diffusers.models.transformers.transformer_flux2 as tf

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def rms_forward(self, x):  # torch.nn.RMSNorm as its formula (the TorchScript exporter has no aten::rms_norm); fp32
    # throughout, so without the casts to float of a float that ONNX Runtime's optimizer (1.26 and 1.30) mis-wires
    v = x.pow(2).mean(-1, keepdim=True)
    y = x * torch.rsqrt(v + (self.eps if self.eps is not None else 1e-6))
    return y * self.weight if self.weight is not None else y


torch.nn.RMSNorm.forward = rms_forward
torch.manual_seed(0)
m = Flux2Transformer2DModel(patch_size=1, in_channels=128, num_layers=2, num_single_layers=2, attention_head_dim=16,
                            num_attention_heads=2, joint_attention_dim=24, timestep_guidance_channels=256,
                            mlp_ratio=3.0, axes_dims_rope=(4, 4, 4, 4), guidance_embeds=False).eval()
with torch.no_grad():  # norms' weights away from 1 so that a wrong wiring shows
    for n, p in m.named_parameters():
        if p.dim() == 1:
            p.add_(0.1 * torch.randn_like(p))
N, L = 16, 8
g = torch.Generator().manual_seed(1)
hs = torch.randn(1, N, 128, generator=g)
ehs = torch.randn(1, L, 24, generator=g)
ts = torch.tensor([0.7])
img_ids = torch.zeros(1, N, 4, dtype=torch.int64)
for i in range(N):
    img_ids[0, i, 1], img_ids[0, i, 2] = i // 4, i % 4
txt_ids = torch.zeros(1, L, 4, dtype=torch.int64)
txt_ids[0, :, 3] = torch.arange(L)


class Wrap(torch.nn.Module):
    def __init__(s, m):
        super().__init__()
        s.m = m

    def forward(s, hidden_states, encoder_hidden_states, timestep, img_ids, txt_ids):
        return s.m(hidden_states=hidden_states, encoder_hidden_states=encoder_hidden_states, timestep=timestep,
                   img_ids=img_ids, txt_ids=txt_ids, return_dict=False)[0]


args = (hs, ehs, ts, img_ids, txt_ids)
path = f"{out}/transformer.onnx"
torch.onnx.export(Wrap(m), args, path, input_names=["hidden_states", "encoder_hidden_states", "timestep", "img_ids",
                  "txt_ids"], output_names=["noise_pred"], opset_version=17, dynamo=False,
                  dynamic_axes={"hidden_states": {1: "n"}, "img_ids": {1: "n"}, "encoder_hidden_states": {1: "l"},
                                "txt_ids": {1: "l"}, "noise_pred": {1: "n"}})
model = onnx.load(path)
gr = model.graph
keep = {v.name for v in gr.input} | {v.name for v in gr.output}
names = {}
for i, t in enumerate(gr.initializer):
    names[t.name] = f"w{i}"
k = 0
for node in gr.node:
    for o in node.output:
        if o and o not in keep and o not in names:
            names[o] = f"v{k}"
            k += 1
for i, t in enumerate(gr.initializer):
    t.name = names[t.name]
for i, node in enumerate(gr.node):
    node.name = f"n{i}"
    for j, x in enumerate(node.input):
        if x in names:
            node.input[j] = names[x]
    for j, x in enumerate(node.output):
        if x in names:
            node.output[j] = names[x]
for v in gr.value_info:
    if v.name in names:
        v.name = names[v.name]
os.remove(path)
if os.path.exists(f"{out}/transformer.onnx.data"):
    os.remove(f"{out}/transformer.onnx.data")
onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="transformer.onnx.data",
          size_threshold=1024)
onnx.checker.check_model(path)
refs = {"hidden_states": hs.numpy(), "encoder_hidden_states": ehs.numpy(), "timestep": ts.numpy(),
        "img_ids": img_ids.numpy().astype(np.float32), "txt_ids": txt_ids.numpy().astype(np.float32)}

rng = np.random.default_rng(20261204)
shapes = {n: tuple(p.shape) for n, p in m.named_parameters() if p.dim() == 2}


def mat(r, c, s=0.3):
    return (s * rng.standard_normal((r, c))).astype(np.float32)


# diffusers names on every linear of the model, rank 4 (rank 3 on a few, since ranks may differ per layer)
t = {}
for i, (n, (o, inp)) in enumerate(sorted(shapes.items())):
    mod = n[:-len(".weight")]
    r = 3 if i % 5 == 0 else 4
    t[f"transformer.{mod}.lora_A.weight"] = mat(r, inp)
    t[f"transformer.{mod}.lora_B.weight"] = mat(o, r, 0.3 / np.sqrt(inp))
save_file(t, f"{out}/diffusers_all.safetensors")
D, F = 32, 96
# BFL / ai-toolkit names: fused qkv, single linear1/linear2, img_in, final_layer
t = {}


def pair(key, r, i, o):
    t[f"diffusion_model.{key}.lora_A.weight"] = mat(r, i)
    t[f"diffusion_model.{key}.lora_B.weight"] = mat(o, r, 0.3 / np.sqrt(i))


for b in range(2):
    pair(f"double_blocks.{b}.img_attn.qkv", 4, D, 3 * D)
    pair(f"double_blocks.{b}.txt_attn.qkv", 4, D, 3 * D)
    pair(f"double_blocks.{b}.img_attn.proj", 2, D, D)
    pair(f"double_blocks.{b}.txt_mlp.0", 2, D, 2 * F)
    pair(f"double_blocks.{b}.img_mlp.2", 2, F, D)
    pair(f"single_blocks.{b}.linear1", 4, D, 3 * D + 2 * F)
    pair(f"single_blocks.{b}.linear2", 4, D + F, D)
pair("img_in", 2, 128, D)
pair("txt_in", 2, 24, D)
pair("final_layer.linear", 2, D, 128)
save_file(t, f"{out}/bfl.safetensors")
# kohya: alphas
t = {}


def kohya(key, r, i, o, alpha=None):
    t[f"lora_unet_{key}.lora_down.weight"] = mat(r, i)
    t[f"lora_unet_{key}.lora_up.weight"] = mat(o, r, 0.3 / np.sqrt(i))
    if alpha is not None:
        t[f"lora_unet_{key}.alpha"] = np.array(alpha, dtype=np.float32)


kohya("double_blocks_0_img_attn_qkv", 4, D, 3 * D, alpha=2.0)
kohya("double_blocks_1_txt_attn_qkv", 6, D, 3 * D, alpha=12.0)
kohya("double_blocks_0_txt_attn_proj", 4, D, D, alpha=1.0)
kohya("double_blocks_1_img_mlp_0", 2, D, 2 * F)
kohya("single_blocks_0_linear1", 4, D, 3 * D + 2 * F, alpha=16.0)
kohya("single_blocks_1_linear2", 8, D + F, D, alpha=4.0)
save_file(t, f"{out}/kohya.safetensors")

pipe = Flux2KleinPipeline(scheduler=None, vae=None, text_encoder=None, tokenizer=None, transformer=m)


def predict():
    with torch.no_grad():
        return Wrap(pipe.transformer)(*args).numpy()


refs["base"] = predict()
for name in ("diffusers_all", "bfl", "kohya"):
    pipe.load_lora_weights(f"{out}/{name}.safetensors", adapter_name=name)
for name in ("diffusers_all", "bfl", "kohya"):
    pipe.set_adapters([name], adapter_weights=[1.0])
    refs[name] = predict()
pipe.set_adapters(["diffusers_all", "kohya"], adapter_weights=[0.7, -0.4])
refs["stack"] = predict()
pipe.set_adapters(["diffusers_all"], adapter_weights=[0.35])
refs["scaled"] = predict()
save_file(refs, f"{out}/reference.safetensors")
print("written to", out)

# The same weights with q/k/v fused into one product per stream (BFL's layout, the q4 "seed" export's structure):
# one MatMul [in, 3·inner] and a Split of its columns where the export has three, so the same references hold.
fused = onnx.load(path)
g = fused.graph
inits = {t.name: t for t in g.initializer}
by_input = {}
for node in g.node:
    if node.op_type == "MatMul" and node.input[1] in inits and list(inits[node.input[1]].dims) == [32, 32]:
        by_input.setdefault(node.input[0], []).append(node)
groups = [nodes for nodes in by_input.values() if len(nodes) == 3]
assert len(groups) == 4, len(groups)  # two double blocks × two streams
new_nodes = []
done = set()
for node in g.node:
    group = next((grp for grp in groups if node in grp), None)
    if group is None:
        new_nodes.append(node)
        continue
    if id(group[0]) in done:
        continue
    done.add(id(group[0]))
    k = len(g.initializer)
    w = np.concatenate([onnx.numpy_helper.to_array(inits[n.input[1]], base_dir=out) for n in group], axis=1)
    g.initializer.append(onnx.numpy_helper.from_array(w, f"w{k}"))
    fused_out = f"f{k}"
    new_nodes.append(onnx.helper.make_node("MatMul", [group[0].input[0], f"w{k}"], [fused_out], name=f"n_f{k}"))
    g.initializer.append(onnx.numpy_helper.from_array(np.array([32, 32, 32], dtype=np.int64), f"s{k}"))
    new_nodes.append(onnx.helper.make_node("Split", [fused_out, f"s{k}"], [n.output[0] for n in group],
                                           name=f"n_s{k}", axis=-1))
del g.node[:]
g.node.extend(new_nodes)
used = {i for n in g.node for i in n.input}
kept = [t for t in g.initializer if t.name in used]
del g.initializer[:]
g.initializer.extend(kept)
for t in g.initializer:  # all weights inside the graph file: the fused graph is small
    if t.data_location == onnx.TensorProto.EXTERNAL:
        onnx.external_data_helper.load_external_data_for_tensor(t, out)
        t.data_location = onnx.TensorProto.DEFAULT
        del t.external_data[:]
onnx.save(fused, f"{out}/transformer_fused_qkv.onnx")
onnx.checker.check_model(f"{out}/transformer_fused_qkv.onnx")
print("fused q/k/v graph written")
