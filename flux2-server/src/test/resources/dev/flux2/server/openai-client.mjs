// Drives flux2-server with the official openai package, unmodified: a generation and an edit (multipart upload).
// Arguments: baseURL apiKey prompt size seed imagePath. Prints one JSON line with both answers' first item.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [baseURL, apiKey, prompt, size, seed, imagePath, modules] = process.argv.slice(2);
const require = createRequire(join(modules, "node_modules", "openai", "package.json"));
const mod = require("openai");
const OpenAI = mod.OpenAI ?? mod.default;
const toFile = mod.toFile;
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60000 });

const generated = await client.images.generate({ model: "flux2-klein", prompt, size, seed: Number(seed) });
const image = await toFile(readFileSync(imagePath), "init.png", { type: "image/png" });
const edited = await client.images.edit({ model: "flux2-klein", image, prompt, size, seed: Number(seed) });
let refused;
try {
  await client.images.generate({ prompt, size: "100x100" });
} catch (e) {
  refused = { status: e.status, message: e.error?.message, param: e.error?.param, type: e.error?.type };
}
console.log(JSON.stringify({
  generated: generated.data[0].b64_json, generatedSeed: generated.data[0].seed,
  edited: edited.data[0].b64_json, editedSeed: edited.data[0].seed, refused,
}));
