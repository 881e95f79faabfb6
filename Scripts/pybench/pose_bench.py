#!/usr/bin/env python3
"""Pose-stage benchmark: vpspack's P3P + LO-RANSAC + refinement beside
poselib.estimate_absolute_pose and cv2.solvePnPRansac (+ solvePnPRefineLM),
on identical synthetic 2D-3D correspondences with 30, 50 and 80 % outliers.

Every solver gets the same threshold (pixels), success probability and
iteration cap, runs on one thread, and is timed per problem (median of
--repeats runs). Prints time and accuracy per solver and the ratios against
vpspack. Usage: pose_bench.py --vpspack PATH/TO/vpspack [--problems N] ...
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import cv2
    import poselib
except ImportError as error:  # the bench script installs them into a virtualenv
    sys.exit(f"pose_bench.py: missing peer package ({error}); run Scripts/bench-pose or pip install poselib opencv-python-headless numpy")

WIDTH, HEIGHT = 640, 480
FX = FY = 525.0
CX, CY = 319.5, 239.5


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def make_problem(rng, count, outlier_ratio, noise):
    """A random camera, `count` map points in view at 1-20 m, pixels with
    Gaussian noise; the first `outlier_ratio` share get random pixels."""
    R = random_rotation(rng)
    centre = rng.uniform(-10, 10, size=3)
    t = -R @ centre
    u = rng.uniform(0, WIDTH - 1, size=count)
    v = rng.uniform(0, HEIGHT - 1, size=count)
    depth = rng.uniform(1, 20, size=count)
    cam = np.stack([(u - CX) / FX * depth, (v - CY) / FY * depth, depth], axis=1)
    world = (cam - t) @ R  # R^T (p - t), row-wise
    pixels = np.stack([u, v], axis=1) + rng.normal(scale=noise, size=(count, 2))
    outliers = int(round(count * outlier_ratio))
    pixels[:outliers] = np.stack([rng.uniform(0, WIDTH - 1, outliers), rng.uniform(0, HEIGHT - 1, outliers)], axis=1)
    order = rng.permutation(count)
    return {"R": R, "t": t, "pixels": pixels[order], "points": world[order]}


def errors(R, t, truth):
    """Rotation error (degrees) and camera-centre error (metres)."""
    dR = R @ truth["R"].T
    angle = np.degrees(np.arccos(np.clip((np.trace(dR) - 1) / 2, -1, 1)))
    centre = -R.T @ t
    true_centre = -truth["R"].T @ truth["t"]
    return angle, float(np.linalg.norm(centre - true_centre))


def run_vpspack(binary, problems, threshold, repeats, flags=()):
    payload = {"threshold": threshold, "repeats": repeats, "problems": [
        {"camera": [FX, FY, CX, CY], "width": WIDTH, "height": HEIGHT,
         "pixels": p["pixels"].ravel().tolist(), "points": p["points"].ravel().tolist()} for p in problems]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(payload, f)
        path = f.name
    try:
        out = subprocess.run([binary, "bench-pose", path, *flags], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    results = []
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("found"):
            R = np.array(r["rotation"]).reshape(3, 3)
            results.append((R, np.array(r["translation"]), r["ms"], r["inliers"]))
        else:
            results.append((None, None, r["ms"], 0))
    return results


def run_poselib(problems, threshold, repeats):
    camera = {"model": "PINHOLE", "width": WIDTH, "height": HEIGHT, "params": [FX, FY, CX, CY]}
    ransac = {"max_reproj_error": threshold, "success_prob": 0.9999, "max_iterations": 10000, "min_iterations": 30}
    results = []
    for p in problems:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            pose, info = poselib.estimate_absolute_pose(p["pixels"], p["points"], camera, ransac, {})
            times.append((time.perf_counter() - start) * 1e3)
        results.append((pose.R, pose.t, statistics.median(times), info["num_inliers"]))
    return results


def run_opencv(problems, threshold, repeats):
    K = np.array([[FX, 0, CX], [0, FY, CY], [0, 0, 1]])
    results = []
    for p in problems:
        obj = np.ascontiguousarray(p["points"])
        img = np.ascontiguousarray(p["pixels"])
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            ok, rvec, tvec, inliers = cv2.solvePnPRansac(obj, img, K, None, iterationsCount=10000,
                                                         reprojectionError=threshold, confidence=0.9999,
                                                         flags=cv2.SOLVEPNP_AP3P)
            if ok and inliers is not None and len(inliers) >= 4:
                idx = inliers.ravel()
                rvec, tvec = cv2.solvePnPRefineLM(obj[idx], img[idx], K, None, rvec, tvec)
            times.append((time.perf_counter() - start) * 1e3)
        if ok:
            R, _ = cv2.Rodrigues(rvec)
            results.append((R, tvec.ravel(), statistics.median(times), 0 if inliers is None else len(inliers)))
        else:
            results.append((None, None, statistics.median(times), 0))
    return results


def summarize(name, results, problems):
    times = [r[2] for r in results]
    rot, pos, ok = [], [], 0
    for (R, t, _, _), truth in zip(results, problems):
        if R is None:
            rot.append(180.0)
            pos.append(1e9)
            continue
        a, d = errors(R, t, truth)
        rot.append(a)
        pos.append(d)
        ok += a < 0.5 and d < 0.1
    return {"name": name, "median_ms": statistics.median(times), "p90_ms": float(np.percentile(times, 90)),
            "rot_deg": statistics.median(rot), "pos_m": statistics.median(pos), "success": ok / len(problems)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vpspack", required=True, help="path to the vpspack binary (release build)")
    parser.add_argument("--problems", type=int, default=40, help="problems per outlier ratio")
    parser.add_argument("--matches", type=int, default=1000, help="correspondences per problem")
    parser.add_argument("--noise", type=float, default=1.0, help="pixel noise of the true matches (sigma)")
    parser.add_argument("--threshold", type=float, default=4.0, help="inlier threshold in pixels")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per problem (median)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    print(f"pose stage: {args.problems} problems x {args.matches} matches per row, noise {args.noise} px, "
          f"threshold {args.threshold} px, one thread, median of {args.repeats} runs")
    print(f"{'outliers':>8} {'solver':<22} {'median ms':>10} {'p90 ms':>8} {'rot err°':>9} {'pos err m':>10} {'success':>8} {'time vs vpspack':>16}")
    results = []
    for ratio in (0.3, 0.5, 0.8):
        problems = [make_problem(rng, args.matches, ratio, args.noise) for _ in range(args.problems)]
        rows = [summarize("vpspack", run_vpspack(args.vpspack, problems, args.threshold, args.repeats), problems),
                summarize("poselib", run_poselib(problems, args.threshold, args.repeats), problems),
                summarize("cv2 AP3P RANSAC+LM", run_opencv(problems, args.threshold, args.repeats), problems),
                # What the inner RANSAC of local optimisation buys (not a peer; no RESULT line).
                summarize("vpspack, no inner", run_vpspack(args.vpspack, problems, args.threshold, args.repeats, ["--no-inner"]), problems)]
        base = rows[0]["median_ms"]
        for r in rows:
            print(f"{int(ratio * 100):>7}% {r['name']:<22} {r['median_ms']:>10.3f} {r['p90_ms']:>8.3f} {r['rot_deg']:>9.4f} "
                  f"{r['pos_m']:>10.4f} {r['success'] * 100:>7.0f}% {r['median_ms'] / base:>15.2f}x")
        results.append((ratio, rows))
    # Machine-readable lines for Scripts/bench: bench, measure, vpspack, peer, ratio, target.
    for ratio, rows in results:
        ours = rows[0]
        for peer in rows[1:3]:
            pct = int(ratio * 100)
            print(f"RESULT\tpose\t{pct}% outliers: median ms vs {peer['name']}\t{ours['median_ms']:.3f}\t{peer['median_ms']:.3f}\t"
                  f"{peer['median_ms'] / ours['median_ms']:.2f}x faster\tfaster")
            print(f"RESULT\tpose\t{pct}% outliers: median position error m vs {peer['name']}\t{ours['pos_m']:.4f}\t{peer['pos_m']:.4f}\t"
                  f"{peer['pos_m'] / max(ours['pos_m'], 1e-12):.2f}\tequal or better")


if __name__ == "__main__":
    main()
