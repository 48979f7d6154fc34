// Independent Node.js driver of a flux2-java bundle on onnxruntime-node (the same ONNX Runtime version as the Java
// backend), for the whole-process comparison in docs/performance.md ("Java and Node side by side").
//
// It runs one text-to-image generation with SEQUENTIAL semantics, as `flux2 generate --memory sequential` does:
// each stage's session is created, run and released before the next one (text encoder, transformer for every step,
// VAE pre-attention, whole-sequence attention, post stages). Same graphs, same input names, shapes and element types,
// same number of steps, same session options (memory patterns off, CPU arena on, all optimisations, ONNX Runtime's
// default threads). The noise is seeded but not torch-compatible (timing does not depend on it). It writes the
// image as a binary PPM and prints per-stage wall times on stderr.
//
//   node generate.mjs --model DIR --prompt TEXT [--width 512 --height 512 --steps 4 --seed 42 --output out.ppm]
//                     [--spinning 0]   (session.intra_op.allow_spinning, as the Java backend option allow_spinning)
import fs from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { Tokenizer } from '@huggingface/tokenizers';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const model = args.model;
if (!model) {
  console.error('usage: node generate.mjs --model DIR --prompt TEXT [--width W --height H --steps N --seed S --output F]');
  process.exit(2);
}
const config = JSON.parse(fs.readFileSync(path.join(model, 'flux2-config.json'), 'utf8'));
const width = Number(args.width ?? config.default_width);
const height = Number(args.height ?? config.default_height);
const steps = Number(args.steps ?? config.num_steps);
const seed = Number(args.seed ?? 42);
const prompt = args.prompt ?? 'a red fox in the snow';
const textLength = config.text_seq_len;
const contextDim = config.context_dim;
const timings = {};

function timed(name, fn) {
  const start = process.hrtime.bigint();
  const r = fn();
  const done = (v) => {
    timings[name] = (timings[name] ?? 0) + Number(process.hrtime.bigint() - start) / 1e9;
    return v;
  };
  return r instanceof Promise ? r.then(done) : done(r);
}

// ---- fp16 <-> fp32 (round to nearest even, as ONNX Runtime and the Java backend convert) ----
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function toHalf(value) {
  f32[0] = Math.max(-65504, Math.min(65504, value));
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  let exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && (half & 1))) half++;
    return sign | half;
  }
  let half = sign | (exp << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half++;
  return half;
}
function fromHalf(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
function tensor(type, values, dims) {
  switch (type) {
    case 'float16': {
      const data = new Uint16Array(values.length);
      for (let i = 0; i < values.length; i++) data[i] = toHalf(values[i]);
      return new ort.Tensor('float16', data, dims);
    }
    case 'float32':
      return new ort.Tensor('float32', Float32Array.from(values), dims);
    case 'int64':
      return new ort.Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);
    case 'int32':
      return new ort.Tensor('int32', Int32Array.from(values), dims);
    default:
      throw new Error(`unsupported input type ${type}`);
  }
}
function floats(t) {
  if (t.type === 'float16') return Float32Array.from(t.data, fromHalf);
  if (t.type === 'float32') return t.data;
  throw new Error(`unsupported output type ${t.type}`);
}

// ---- sessions: SEQUENTIAL, the Java backend's options ----
const sessionOptions = {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  enableMemPattern: false,
  enableCpuMemArena: true,
  ...(args.spinning === undefined ? {} : { extra: { session: { intra_op: { allow_spinning: String(args.spinning) } } } }),
};
async function withSession(key, fn) {
  const file = path.join(model, config.models[key].file);
  const session = await timed('session_create', () => ort.InferenceSession.create(file, sessionOptions));
  try {
    return await fn(session);
  } finally {
    await timed('session_release', () => session.release());
  }
}
function inputType(session, name) {
  const meta = session.inputMetadata?.find?.((m) => m.name === name);
  return meta?.type ?? null;
}

// ---- 1. tokenize: the chat template of flux2-tokenizer's PromptTemplate, right padding with pad_token ----
const tokDir = path.join(model, config.tokenizer_dir);
const { ids, mask } = timed('tokenize', () => {
  const tokenizerJson = JSON.parse(fs.readFileSync(path.join(tokDir, 'tokenizer.json'), 'utf8'));
  const tokenizerConfig = JSON.parse(fs.readFileSync(path.join(tokDir, 'tokenizer_config.json'), 'utf8'));
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  const text = `<|im_start|>user\n${prompt}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`;
  const encoded = tokenizer.encode(text, { add_special_tokens: false }).ids.slice(0, textLength);
  const padToken = typeof tokenizerConfig.pad_token === 'string' ? tokenizerConfig.pad_token : tokenizerConfig.pad_token?.content;
  const padId = tokenizer.encode(padToken, { add_special_tokens: false }).ids[0];
  const out = new Array(textLength).fill(padId);
  const m = new Array(textLength).fill(0);
  encoded.forEach((id, i) => { out[i] = id; m[i] = 1; });
  return { ids: out, mask: m };
});

// ---- 2. text encoder ----
const ctx = await timed('text_encode', () => withSession('text_encoder', async (s) => {
  const feeds = {};
  for (const name of s.inputNames) {
    const values = name.includes('mask') ? mask : name.includes('position') ? ids.map((_, i) => i) : ids;
    feeds[name] = tensor(inputType(s, name) ?? 'int64', values, [1, textLength]);
  }
  const out = await s.run(feeds);
  return out[s.outputNames[0]];
}));

// ---- 3. denoise: Euler on the host, one transformer call per step ----
const gw = width / 16;
const gh = height / 16;
const n = gw * gh;
let rng = BigInt(seed) | 1n;
function uniform() {
  rng ^= rng << 13n; rng &= (1n << 64n) - 1n;
  rng ^= rng >> 7n;
  rng ^= rng << 17n; rng &= (1n << 64n) - 1n;
  return Number(rng >> 11n) / 2 ** 53;
}
const latent = new Float32Array(n * 128);
for (let i = 0; i < latent.length; i += 2) {
  const r = Math.sqrt(-2 * Math.log(1 - uniform()));
  const a = 2 * Math.PI * uniform();
  latent[i] = r * Math.cos(a);
  latent[i + 1] = r * Math.sin(a);
}
// The schedule of flux2-core's FlowMatchSchedule (shifted sigmas; mu from the token count).
const mu = (() => {
  const a1 = 8.73809524e-5, b1 = 1.89833333, a2 = 0.00016927, b2 = 0.45666666;
  if (n > 4300) return a2 * n + b2;
  const m200 = a2 * n + b2, m10 = a1 * n + b1;
  const a = (m200 - m10) / 190, b = m200 - 200 * a;
  return a * steps + b;
})();
const sigmas = [];
for (let i = 0; i < steps; i++) {
  const t = 1 - (i * (1 - 1 / steps)) / (steps - 1 || 1);
  sigmas.push(Math.exp(mu) / (Math.exp(mu) + (1 / t - 1)));
}
sigmas.push(0);
const xIds = [];
for (let r = 0; r < gh; r++) for (let c = 0; c < gw; c++) xIds.push(0, r, c, 0);
const ctxIds = [];
for (let l = 0; l < textLength; l++) ctxIds.push(0, 0, 0, l);
await timed('denoise', () => withSession('transformer', async (s) => {
  const names = config.models.transformer.inputs;
  const [xName, xIdsName, tName, ctxName, ctxIdsName] = names;
  const ctxType = inputType(s, ctxName) ?? 'float16';
  const ctxFeed = ctx.type === ctxType ? ctx : tensor(ctxType, floats(ctx), [1, textLength, contextDim]);
  const idsType = inputType(s, xIdsName) ?? 'float32';
  const xIdsFeed = tensor(idsType, xIds, [1, n, 4]);
  const ctxIdsFeed = tensor(inputType(s, ctxIdsName) ?? 'float32', ctxIds, [1, textLength, 4]);
  for (let i = 0; i < steps; i++) {
    const feeds = {
      [xName]: tensor(inputType(s, xName) ?? 'float16', latent, [1, n, 128]),
      [xIdsName]: xIdsFeed,
      [tName]: tensor(inputType(s, tName) ?? 'float16', [sigmas[i]], [1]),
      [ctxName]: ctxFeed,
      [ctxIdsName]: ctxIdsFeed,
    };
    const out = await s.run(feeds);
    const v = floats(out[s.outputNames[0]]);
    const dt = sigmas[i + 1] - sigmas[i];
    for (let j = 0; j < latent.length; j++) latent[j] += dt * v[j];
  }
}));

// ---- 4. VAE decode: unpack the tokens to [1, 128, H/16, W/16], then the split decoder chain ----
const z = new Float32Array(128 * n);
for (let t = 0; t < n; t++) for (let c = 0; c < 128; c++) z[c * n + t] = latent[t * 128 + c];
const image = await timed('vae_decode', async () => {
  const produced = {};
  const keys = [];
  if (config.models.vae_decoder) {
    keys.push('vae_decoder');
  } else {
    keys.push('vae_decoder_pre', 'vae_decoder_attn_chunk', ...config.vae_decoder_post_stage_keys);
  }
  let last = null;
  for (const key of keys) {
    await withSession(key, async (s) => {
      if (key === 'vae_decoder' || key === 'vae_decoder_pre') {
        const name = s.inputNames[0];
        const out = await s.run({ [name]: tensor(inputType(s, name) ?? 'float16', z, [1, 128, gh, gw]) });
        Object.assign(produced, out);
        last = out[s.outputNames[0]];
      } else if (key === 'vae_decoder_attn_chunk') {
        // Whole-sequence attention (what the Java backend's vae_attention=auto runs at 512²): q, kᵀ, v from the
        // pre stage by their q4 names.
        const pre = Object.keys(produced);
        const pick = (suffix) => produced[pre.find((k) => k.endsWith(suffix))];
        const out = await s.run({
          [s.inputNames[0]]: pick('/Mul_6_output_0'),
          [s.inputNames[1]]: pick('/Mul_7_output_0'),
          [s.inputNames[2]]: pick('/Reshape_2_output_0'),
        });
        produced.__attention = out[s.outputNames[0]];
      } else {
        const feeds = {};
        for (const name of s.inputNames) {
          feeds[name] = produced[name] ?? (/attn|attention|MatMul/.test(name) ? produced.__attention : last);
        }
        const out = await s.run(feeds);
        Object.assign(produced, out);
        last = out[s.outputNames[0]];
      }
    });
  }
  return floats(last);
});

// ---- 5. image: [-1, 1] planar RGB -> binary PPM ----
await timed('write', () => {
  const w = width, h = height;
  const rgb = Buffer.alloc(w * h * 3);
  for (let c = 0; c < 3; c++) {
    for (let i = 0; i < w * h; i++) {
      rgb[i * 3 + c] = Math.max(0, Math.min(255, Math.round((image[c * w * h + i] + 1) * 127.5)));
    }
  }
  fs.writeFileSync(args.output ?? 'flux2-node.ppm', Buffer.concat([Buffer.from(`P6\n${w} ${h}\n255\n`), rgb]));
});
console.error('timings: ' + Object.entries(timings).map(([k, v]) => `${k}=${v.toFixed(3)}s`).join(' '));
