"""Deterministic benchmark images: a textured synthetic scene at VGA and 1080p.

The scene mixes what real indoor captures have: large flat regions, edges,
corners of many contrasts, and fine texture (posters, floor patterns).
"""
import os

import cv2
import numpy as np


def scene(width, height, seed=7):
    rng = np.random.default_rng(seed)
    img = np.zeros((height, width), np.float32)
    # Smooth multi-scale background.
    for octave in range(5):
        step = 2 ** (octave + 3)
        small = rng.normal(0, 1, (height // step + 2, width // step + 2)).astype(np.float32)
        img += cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)[:height, :width] * (30.0 / (octave + 1))
    img += 128
    s = width / 640.0
    # Rectangles, polygons and discs of random gray levels.
    for _ in range(120):
        kind = rng.integers(0, 3)
        color = float(rng.integers(0, 256))
        if kind == 0:
            x, y = rng.integers(0, width), rng.integers(0, height)
            w, h = rng.integers(int(8 * s), int(120 * s)), rng.integers(int(8 * s), int(120 * s))
            cv2.rectangle(img, (int(x), int(y)), (int(x + w), int(y + h)), color, -1)
        elif kind == 1:
            pts = rng.integers(0, [width, height], (5, 2)).astype(np.int32)
            centre = pts.mean(axis=0)
            pts = ((pts - centre) * 0.25 + centre).astype(np.int32)
            cv2.fillPoly(img, [pts], color)
        else:
            cv2.circle(img, (int(rng.integers(0, width)), int(rng.integers(0, height))), int(rng.integers(int(4 * s), int(50 * s))), color, -1)
    # Fine texture patches (posters, tiles).
    for _ in range(12):
        pw, ph = int(rng.integers(40, 160) * s), int(rng.integers(40, 160) * s)
        x, y = int(rng.integers(0, width - pw)), int(rng.integers(0, height - ph))
        tex = rng.integers(0, 256, (ph // 4 + 1, pw // 4 + 1)).astype(np.float32)
        img[y:y + ph, x:x + pw] = cv2.resize(tex, (pw, ph), interpolation=cv2.INTER_NEAREST)[:ph, :pw]
    img = cv2.GaussianBlur(img, (0, 0), 0.8 * s)
    img += rng.normal(0, 2.0, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def ensure(out_dir):
    """Writes vga.png and 1080p.png (and JPEG copies) into out_dir; returns their PNG paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for name, (w, h) in (("vga", (640, 480)), ("1080p", (1920, 1080))):
        path = os.path.join(out_dir, name + ".png")
        if not os.path.exists(path):
            img = scene(w, h)
            cv2.imwrite(path, img)
            cv2.imwrite(os.path.join(out_dir, name + ".jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths[name] = path
    return paths
