"""Streams from flux2-server with the official openai package, unmodified: a generation (stream=True,
partial_images=2) and an edit (multipart upload, partial_images=1).

Arguments: base_url api_key prompt size seed image_path. Prints one JSON line: the events of each stream."""
import json
import sys

from openai import OpenAI

base_url, api_key, prompt, size, seed, image_path = sys.argv[1:7]
client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=60)


def collect(stream):
    events = []
    for event in stream:
        usage = getattr(event, "usage", None)
        events.append({
            "type": event.type,
            "index": getattr(event, "partial_image_index", None),
            "b64": event.b64_json,
            "size": event.size,
            "format": event.output_format,
            "usage": usage.model_dump() if usage is not None else None,
        })
    return events


extra = {"seed": int(seed), "steps": 4}
generated = collect(client.images.generate(
    model="flux2-klein", prompt=prompt, size=size, stream=True, partial_images=2, extra_body=extra))
with open(image_path, "rb") as image:
    edited = collect(client.images.edit(
        model="flux2-klein", image=image, prompt=prompt, size=size, stream=True, partial_images=1,
        extra_body=extra))
print(json.dumps({"generated": generated, "edited": edited}))
