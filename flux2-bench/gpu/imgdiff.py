#!/usr/bin/env python3
"""Pixel difference of PNG pairs: imgdiff.py A.png B.png [A2.png B2.png ...] -> one line per pair
(max absolute level difference over RGB, mean, and how many channel values differ by more than 1 level)."""
import os
import sys

import numpy as np
from PIL import Image

args = sys.argv[1:]
for a, b in zip(args[0::2], args[1::2]):
    if not (os.path.exists(a) and os.path.exists(b)):
        print(f"{a} vs {b}: MISSING")
        continue
    x = np.asarray(Image.open(a).convert("RGB"), dtype=np.int16)
    y = np.asarray(Image.open(b).convert("RGB"), dtype=np.int16)
    if x.shape != y.shape:
        print(f"{a} vs {b}: SHAPE {x.shape} vs {y.shape}")
        continue
    d = np.abs(x - y)
    print(f"{a} vs {b}: {x.shape[1]}x{x.shape[0]} max={d.max()} mean={d.mean():.4f} over1={(d > 1).sum()}")
