"""Writes the LoRA fixtures of LoraFilesTest with the reference safetensors writer, and the expected per-layer updates
computed by diffusers' own conversion functions.

    python make_lora_fixtures.py DIFFUSERS_REPO OUT_DIR

DIFFUSERS_REPO is a git checkout of diffusers holding commit 58eb52c; the functions
_convert_non_diffusers_flux2_lora_to_diffusers and _convert_kohya_flux2_lora_to_diffusers are taken from its
src/diffusers/loaders/lora_conversion_utils.py at that commit and run unchanged on numpy arrays through a small
stand-in for the five torch calls they make (cat, chunk, split, tensor, all). Needs numpy and safetensors.
Each expected file maps '<module>' to scale * lora_B @ lora_A (float64 products, stored as float32), the update
diffusers' PEFT layer adds to the weight.
"""
import ast, json, logging, subprocess, sys, types
import numpy as np
from safetensors import serialize_file, TensorSpec
from safetensors.numpy import save_file

repo, out = sys.argv[1], sys.argv[2]
src = subprocess.run(["git", "-C", repo, "show", "58eb52c:src/diffusers/loaders/lora_conversion_utils.py"],
                     check=True, capture_output=True, text=True).stdout
wanted = {"_convert_non_diffusers_flux2_lora_to_diffusers", "_convert_kohya_flux2_lora_to_diffusers"}
tree = ast.parse(src)
code = "\n\n".join(ast.get_source_segment(src, n) for n in tree.body
                   if isinstance(n, ast.FunctionDef) and n.name in wanted)

class T(np.ndarray):
    def contiguous(self):
        return self

def _t(a):
    return np.asarray(a).view(T)

torch = types.SimpleNamespace(
    cat=lambda xs, dim=0: _t(np.concatenate(xs, axis=dim)),
    chunk=lambda x, n, dim=0: [_t(c) for c in np.split(x, n, axis=dim)],
    split=lambda x, sizes, dim=0: [_t(c) for c in np.split(x, np.cumsum(sizes)[:-1], axis=dim)],
    tensor=lambda v, dtype=None, device=None, requires_grad=False: _t(np.array(v, dtype=dtype)),
    all=lambda x: bool(np.all(x)))
ns = {"torch": torch, "logger": logging.getLogger("diffusers")}
exec(code, ns)
rng = np.random.default_rng(20261204)
D = 12  # inner width of the toy layers; q/k/v are D wide, fused qkv 3D, single linear1 3D + 2*mlp


def mat(r, c, dtype=np.float32):
    return _t(rng.standard_normal((r, c)).astype(np.float32).astype(dtype))


def bf16_round(a):
    b = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return b.view(np.float32)


def write_bf16(path, tensors, metadata=None):
    keep, specs = [], {}
    for k, v in tensors.items():
        bits = (np.asarray(v, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
        keep.append(bits)
        specs[k] = TensorSpec(dtype="bfloat16", shape=list(bits.shape), data_ptr=bits.ctypes.data, data_len=bits.nbytes)
    serialize_file(specs, path, metadata)


def expected(converted, scale_of=lambda module, rank: 1.0):
    deltas = {}
    for k in converted:
        if k.endswith(".lora_A.weight"):
            module = k[len("transformer."):-len(".lora_A.weight")]
            a = np.asarray(converted[k], dtype=np.float64)
            b = np.asarray(converted[k.replace("lora_A", "lora_B")], dtype=np.float64)
            deltas[module] = (scale_of(module, a.shape[0]) * (b @ a)).astype(np.float32)
    return deltas


def save(name, tensors, deltas, metadata=None, dtype="f32"):
    if dtype == "bf16":
        write_bf16(f"{out}/{name}.safetensors", tensors, metadata)
    else:
        save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, f"{out}/{name}.safetensors", metadata)
    save_file({k: np.ascontiguousarray(v) for k, v in deltas.items()}, f"{out}/{name}.expected.safetensors")


# 1. diffusers names, no metadata: scale 1, ranks differ per layer
t = {}
for module, (r, i, o) in {"transformer_blocks.0.attn.to_q": (4, D, D), "transformer_blocks.1.ff.linear_in": (2, D, 6 * D),
                          "single_transformer_blocks.0.attn.to_out": (3, 4 * D, D), "proj_out": (4, D, 8)}.items():
    t[f"transformer.{module}.lora_A.weight"] = mat(r, i)
    t[f"transformer.{module}.lora_B.weight"] = mat(o, r)
save("diffusers_f32", t, expected(t))

# 2. diffusers names, PEFT metadata (alpha 8 over r 4, proj_out's alpha 2 by pattern), fp16
t = {}
for module in ("transformer_blocks.0.attn.add_k_proj", "transformer_blocks.0.attn.to_add_out", "proj_out"):
    t[f"transformer.{module}.lora_A.weight"] = mat(4, D, np.float16)
    t[f"transformer.{module}.lora_B.weight"] = mat(D, 4, np.float16)
meta = {"transformer.r": 4, "transformer.lora_alpha": 8, "transformer.alpha_pattern": {"proj_out": 2},
        "transformer.rank_pattern": {}, "transformer.use_rslora": False}
save("diffusers_meta_f16", t, expected(t, lambda m, r: (2.0 if m == "proj_out" else 8.0) / 4),
     {"format": "pt", "lora_adapter_metadata": json.dumps(meta)})

# 3. BFL / ai-toolkit names, bf16 values
t = {}
def pair(key, r, i, o):
    t[f"diffusion_model.{key}.lora_A.weight"] = _t(bf16_round(mat(r, i)))
    t[f"diffusion_model.{key}.lora_B.weight"] = _t(bf16_round(mat(o, r)))
pair("double_blocks.0.img_attn.qkv", 4, D, 3 * D)
pair("double_blocks.0.txt_attn.qkv", 4, D, 3 * D)
pair("double_blocks.0.img_attn.proj", 4, D, D)
pair("double_blocks.1.txt_mlp.2", 2, 3 * D, D)
pair("single_blocks.0.linear1", 4, D, 3 * D + 6 * D)
pair("single_blocks.1.linear2", 4, D + 3 * D, D)
pair("img_in", 2, 8, D)
pair("final_layer.linear", 2, D, 8)
conv = ns["_convert_non_diffusers_flux2_lora_to_diffusers"](dict(t))
save("bfl_bf16", t, expected(conv), dtype="bf16")

# 4. PEFT's base_model.model. prefix over BFL names
t2 = {k.replace("diffusion_model.", "base_model.model."): v for k, v in t.items() if "double_blocks.0" in k}
conv = ns["_convert_non_diffusers_flux2_lora_to_diffusers"](
    {k.replace("base_model.model.", "diffusion_model."): v for k, v in t2.items()})
save("peft_bf16", t2, expected(conv), dtype="bf16")

# 5. kohya: alpha tensors, a dense and a block-diagonal (sparse) fused q/k/v
for dtype, tag in ((np.float32, "f32"), (np.float16, "f16")):
    t = {}
    def kohya(key, r, i, o, alpha=None, sparse=False):
        down, up = mat(r, i, dtype), mat(o, r, dtype)
        if sparse:
            k = r // 3
            mask = np.zeros((o, r), dtype=dtype)
            for j in range(3):
                mask[j * (o // 3):(j + 1) * (o // 3), j * k:(j + 1) * k] = 1
            up = _t(np.asarray(up) * mask)
        t[f"lora_unet_{key}.lora_down.weight"] = down
        t[f"lora_unet_{key}.lora_up.weight"] = up
        if alpha is not None:
            t[f"lora_unet_{key}.alpha"] = _t(np.array(alpha, dtype=dtype))
    kohya("double_blocks_0_img_attn_qkv", 4, D, 3 * D, alpha=2.0)
    kohya("double_blocks_0_txt_attn_qkv", 6, D, 3 * D, alpha=12.0, sparse=True)
    kohya("double_blocks_0_img_attn_proj", 4, D, D, alpha=1.0)
    kohya("double_blocks_1_img_mlp_0", 2, D, 6 * D)
    kohya("single_blocks_0_linear1", 4, D, 9 * D, alpha=16.0)
    kohya("single_blocks_2_linear2", 8, 4 * D, D, alpha=4.0)
    kohya("img_in", 2, 8, D)
    conv = ns["_convert_kohya_flux2_lora_to_diffusers"](dict(t))
    save(f"kohya_{tag}", t, expected(conv))

# 6. refusals: a text-encoder LoRA (kohya), an SDXL UNet LoRA (diffusers names), a lone lora_A
t = {"lora_te1_text_model_encoder_layers_0_self_attn_q_proj.lora_down.weight": mat(2, D),
     "lora_te1_text_model_encoder_layers_0_self_attn_q_proj.lora_up.weight": mat(D, 2),
     "lora_unet_double_blocks_0_img_attn_proj.lora_down.weight": mat(2, D),
     "lora_unet_double_blocks_0_img_attn_proj.lora_up.weight": mat(D, 2)}
save_file({k: np.ascontiguousarray(v) for k, v in t.items()}, f"{out}/refuse_text_encoder.safetensors")
t = {"unet.down_blocks.0.attentions.0.transformer_blocks.0.attn1.to_q.lora_A.weight": mat(2, D),
     "unet.down_blocks.0.attentions.0.transformer_blocks.0.attn1.to_q.lora_B.weight": mat(D, 2)}
save_file({k: np.ascontiguousarray(v) for k, v in t.items()}, f"{out}/refuse_sdxl.safetensors")
t = {"transformer.proj_out.lora_A.weight": mat(2, D)}
save_file({k: np.ascontiguousarray(v) for k, v in t.items()}, f"{out}/refuse_lone_a.safetensors")
print("written to", out)
