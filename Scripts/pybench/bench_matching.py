"""Descriptor matching: the multi-index-hashing index beside brute force, on
features of synthetic scenes (map) and of rotated, scaled, noisy views (queries).

Also measures what a CPU-specific build (-target-cpu nehalem, which has POPCNT) gains on Hamming distances, when VPSPACK_V2_BIN names such a build.
"""
import os
import subprocess
import sys

import cv2
import numpy as np

import images


def make_images(out_dir, count, queries):
    d = os.path.join(out_dir, "matching")
    os.makedirs(d, exist_ok=True)
    map_paths, query_paths = [], []
    rng = np.random.default_rng(3)
    for i in range(count):
        path = os.path.join(d, f"map{i:03d}.png")
        if not os.path.exists(path):
            cv2.imwrite(path, images.scene(960, 720, seed=100 + i))
        map_paths.append(path)
    for i in range(queries):
        path = os.path.join(d, f"query{i:03d}.png")
        if not os.path.exists(path):
            src = images.scene(960, 720, seed=100 + (i * 7) % count)
            angle, scale = rng.uniform(-20, 20), rng.uniform(0.8, 1.2)
            m = cv2.getRotationMatrix2D((480, 360), angle, scale)
            warped = cv2.warpAffine(src, m, (960, 720), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            noisy = np.clip(warped.astype(np.float32) + rng.normal(0, 3, warped.shape), 0, 255).astype(np.uint8)
            cv2.imwrite(path, noisy)
        query_paths.append(path)
    return map_paths, query_paths


def run(vpspack, map_paths, query_paths, extra=()):
    args = [vpspack, "bench-matching", *map_paths]
    for q in query_paths:
        args += ["--query", q]
    return subprocess.run(args + list(extra), check=True, capture_output=True, text=True).stdout


def main(vpspack, out_dir):
    map_paths, query_paths = make_images(out_dir, 50, 10)
    print("== descriptor matching: 50 map images x 2000 features, 10 query images x 1000 features")
    out = run(vpspack, map_paths, query_paths)
    sys.stdout.write(out)
    rows = [line for line in out.splitlines() if "us/query" in line]
    brute = next((r for r in rows if r.startswith("brute force")), None)
    default = next((r for r in rows if r.startswith("12 tables x 16 bits, radius 1")), None)
    if brute and default:
        def us(row):
            return float(row.split("us/query")[0].split()[-1])
        recall = default.split("recall")[1].split()[0]
        print(f"RESULT\tmatching\tindex vs brute force, 100k descriptors (us per query)\t{us(default):.1f}\t{us(brute):.1f}\t"
              f"{us(brute) / us(default):.1f}x faster\tfar faster")
        print(f"RESULT\tmatching\tindex recall of true nearest neighbours (<= 64 bits)\t{recall}\t1.000\t-\t>= 0.9")
    v2 = os.environ.get("VPSPACK_V2_BIN")
    if v2:
        print("== popcount: brute force with the portable build vs -target-cpu nehalem (POPCNT)")
        for label, binary in (("portable", vpspack), ("nehalem", v2)):
            out = run(binary, map_paths[:10], query_paths[:2], ["--popcount"]).strip().splitlines()[-1]
            print(f"{label:10} {out}")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
