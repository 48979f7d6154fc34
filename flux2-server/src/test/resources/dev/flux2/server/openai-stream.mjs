// Streams from flux2-server with the official openai package, unmodified: a generation (stream: true,
// partial_images: 2) and an edit (multipart upload, partial_images: 1).
// Arguments: baseURL apiKey prompt size seed imagePath modulesDir. Prints one JSON line: the events of each stream.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [baseURL, apiKey, prompt, size, seed, imagePath, modules] = process.argv.slice(2);
const require = createRequire(join(modules, "node_modules", "openai", "package.json"));
const mod = require("openai");
const OpenAI = mod.OpenAI ?? mod.default;
const toFile = mod.toFile;
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60000 });

async function collect(stream) {
  const events = [];
  for await (const event of stream) {
    events.push({ type: event.type, index: event.partial_image_index ?? null, b64: event.b64_json,
      size: event.size, format: event.output_format, usage: event.usage ?? null });
  }
  return events;
}

const generated = await collect(await client.images.generate({
  model: "flux2-klein", prompt, size, seed: Number(seed), steps: 4, stream: true, partial_images: 2 }));
const image = await toFile(readFileSync(imagePath), "init.png", { type: "image/png" });
const edited = await collect(await client.images.edit({
  model: "flux2-klein", image, prompt, size, seed: Number(seed), steps: 4, stream: true, partial_images: 1 }));
console.log(JSON.stringify({ generated, edited }));
