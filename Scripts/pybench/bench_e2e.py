#!/usr/bin/env python3
"""End-to-end localization benchmark (decode to pose): vpspack beside an
OpenCV pipeline (cv2.ORB, BFMatcher knn + ratio test, solvePnPRansac AP3P,
solvePnPRefineLM), on the same rendered images, the same reference frames and
depth, one core each.

A textured room (six planes, a different random texture on each) is ray-cast
at random poses: reference frames with exact depth make the maps (vpspack's
through `vpspack bench-map`, OpenCV's from cv2.ORB on the same frames), held-out
queries with ground truth measure recall and accuracy, and views of another
room measure false positives. Usage: bench_e2e.py --vpspack PATH [--frames N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import cv2
except ImportError as error:
    sys.exit(f"bench_e2e.py: missing peer package ({error}); run Scripts/bench-pose or pip install opencv-python-headless numpy")

W, H = 640, 480
FX = FY = 520.0
CX, CY = 319.5, 239.5
ROOM = {"x": (-5.0, 5.0), "y": (0.0, 3.0), "z": (-4.0, 4.0)}
TEX = 2048


def texture(rng):
    t = np.full((TEX, TEX), 128, np.float32)
    for _ in range(900):
        w, h = rng.integers(16, 160, size=2)
        x0, y0 = rng.integers(0, TEX - w), rng.integers(0, TEX - h)
        value = rng.integers(0, 256)
        if rng.random() < 0.5:
            t[y0:y0 + h, x0:x0 + w] = value
        else:
            yy, xx = np.mgrid[0:h, 0:w]
            mask = ((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) <= 0.25
            t[y0:y0 + h, x0:x0 + w][mask] = value
    return t


class Room:
    """Six textured planes: (axis, value, the two in-plane axes)."""

    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.planes = []
        for axis in "xyz":
            lo, hi = ROOM[axis]
            others = [a for a in "xyz" if a != axis]
            for value in (lo, hi):
                self.planes.append((axis, value, others, texture(rng)))

    def render(self, R, t, rng):
        """Gray image and z-depth of the world-to-camera pose (R, t), OpenCV axes."""
        u, v = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
        d_cam = np.stack([(u - CX) / FX, (v - CY) / FY, np.ones_like(u)], axis=-1)
        d = d_cam @ R  # rows: R^T d_cam
        c = -R.T @ t
        best = np.full((H, W), np.inf)
        image = np.zeros((H, W), np.float32)
        index = {"x": 0, "y": 1, "z": 2}
        for axis, value, others, tex in self.planes:
            k = index[axis]
            with np.errstate(divide="ignore", invalid="ignore"):
                s = (value - c[k]) / d[..., k]
            hit = np.isfinite(s) & (s > 0) & (s < best)
            if not hit.any():
                continue
            p = c + s[..., None] * d
            a, b = index[others[0]], index[others[1]]
            (alo, ahi), (blo, bhi) = ROOM[others[0]], ROOM[others[1]]
            tu = (p[..., a] - alo) / (ahi - alo) * (TEX - 1)
            tv = (p[..., b] - blo) / (bhi - blo) * (TEX - 1)
            inside = hit & (tu >= 0) & (tu <= TEX - 1) & (tv >= 0) & (tv <= TEX - 1)
            tu0 = np.clip(np.floor(tu).astype(int), 0, TEX - 2)
            tv0 = np.clip(np.floor(tv).astype(int), 0, TEX - 2)
            fu, fv = np.clip(tu - tu0, 0, 1), np.clip(tv - tv0, 0, 1)
            val = (tex[tv0, tu0] * (1 - fu) + tex[tv0, tu0 + 1] * fu) * (1 - fv) + (tex[tv0 + 1, tu0] * (1 - fu) + tex[tv0 + 1, tu0 + 1] * fu) * fv
            image[inside] = val[inside]
            best[inside] = s[inside]
        image += rng.normal(scale=2.0, size=image.shape)
        return np.clip(image, 0, 255).astype(np.uint8), best.astype(np.float32)


def pose(rng):
    """A random camera inside the room: world-to-camera (R, t) in OpenCV axes."""
    centre = np.array([rng.uniform(-3.5, 3.5), rng.uniform(1.2, 1.8), rng.uniform(-2.5, 2.5)])
    yaw, pitch = np.radians(rng.uniform(0, 360)), np.radians(rng.uniform(-10, 10))
    ry = np.array([[np.cos(-yaw), 0, np.sin(-yaw)], [0, 1, 0], [-np.sin(-yaw), 0, np.cos(-yaw)]])
    rx = np.array([[1, 0, 0], [0, np.cos(pitch), -np.sin(pitch)], [0, np.sin(pitch), np.cos(pitch)]])
    arkit = ry @ rx
    R = (arkit @ np.diag([1.0, -1.0, -1.0])).T
    return R, -R @ centre


def errors(R, t, Rt, tt):
    dR = R @ Rt.T
    angle = np.degrees(np.arccos(np.clip((np.trace(dR) - 1) / 2, -1, 1)))
    return float(np.linalg.norm(-R.T @ t + Rt.T @ tt)), float(angle)


def quat_to_R(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def main(vpspack, out_dir, frames=100, queries=30, outside=10, features=1000, seed=7):
    cv2.setNumThreads(1)
    os.makedirs(out_dir, exist_ok=True)
    work = os.path.join(out_dir, "e2e")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(seed)
    room, other = Room(seed), Room(seed + 1000)
    K = np.array([[FX, 0, CX], [0, FY, CY], [0, 0, 1]])

    start = time.time()
    refs = []
    for i in range(frames):
        R, t = pose(rng)
        img, depth = room.render(R, t, rng)
        cv2.imwrite(os.path.join(work, f"ref{i}.png"), img)
        depth.astype("<f4").tofile(os.path.join(work, f"ref{i}.depth"))
        refs.append({"image": f"ref{i}.png", "depth": f"ref{i}.depth", "rotation": R.ravel().tolist(), "translation": t.tolist(), "img": img, "z": depth})
    truth = []
    for i in range(queries):
        R, t = pose(rng)
        img, _ = room.render(R, t, rng)
        cv2.imwrite(os.path.join(work, f"q{i}.png"), img)
        truth.append((R, t))
    for i in range(outside):
        R, t = pose(rng)
        img, _ = other.render(R, t, rng)
        cv2.imwrite(os.path.join(work, f"out{i}.png"), img)
    print(f"rendered {frames} reference frames, {queries} queries, {outside} out-of-map views in {time.time() - start:.1f} s")

    with open(os.path.join(work, "frames.json"), "w") as f:
        json.dump({"fx": FX, "fy": FY, "cx": CX, "cy": CY, "frames": [{k: r[k] for k in ("image", "depth", "rotation", "translation")} for r in refs]}, f)
    pack = os.path.join(work, "room.vpspack")
    built = json.loads(subprocess.run([vpspack, "bench-map", os.path.join(work, "frames.json"), pack, "--features", str(features)],
                                      check=True, capture_output=True, text=True).stdout)

    # OpenCV's map: cv2.ORB on the same frames, lifted with the same depth.
    orb = cv2.ORB_create(nfeatures=features)
    map_points, map_des = [], []
    for r in refs:
        kps, des = orb.detectAndCompute(r["img"], None)
        if des is None:
            continue
        R, t = np.array(r["rotation"]).reshape(3, 3), np.array(r["translation"])
        for kp, d in zip(kps, des):
            u, v = int(round(kp.pt[0])), int(round(kp.pt[1]))
            if not (0 <= u < W and 0 <= v < H):
                continue
            z = float(r["z"][v, u])
            if not np.isfinite(z) or z <= 0:
                continue
            pc = np.array([(kp.pt[0] - CX) / FX * z, (kp.pt[1] - CY) / FY * z, z])
            map_points.append(R.T @ (pc - t))
            map_des.append(d)
    map_points = np.array(map_points)
    map_des = np.array(map_des)
    print(f"maps: vpspack {built['points']} points, OpenCV {len(map_points)} points")

    def run_vpspack(name):
        out = subprocess.run(["taskset", "-c", "0", vpspack, "localize", os.path.join(work, name), "--pack", pack,
                              "--intrinsics", f"{FX},{FY},{CX},{CY}", "--json"], capture_output=True, text=True).stdout
        return json.loads(out.splitlines()[0])

    bf = cv2.BFMatcher(cv2.NORM_HAMMING)

    def run_opencv(name):
        t0 = time.perf_counter()
        img = cv2.imread(os.path.join(work, name), cv2.IMREAD_GRAYSCALE)
        kps, des = orb.detectAndCompute(img, None)
        result = None
        if des is not None and len(kps) >= 4:
            good = [m[0] for m in bf.knnMatch(des, map_des, k=2) if len(m) == 2 and m[0].distance < 0.8 * m[1].distance]
            if len(good) >= 4:
                obj = np.array([map_points[m.trainIdx] for m in good])
                imgp = np.array([kps[m.queryIdx].pt for m in good])
                ok, rvec, tvec, inliers = cv2.solvePnPRansac(obj, imgp, K, None, iterationsCount=10000, reprojectionError=4.0,
                                                             confidence=0.9999, flags=cv2.SOLVEPNP_AP3P)
                if ok and inliers is not None and len(inliers) >= 12:
                    idx = inliers.ravel()
                    rvec, tvec = cv2.solvePnPRefineLM(obj[idx], imgp[idx], K, None, rvec, tvec)
                    result = (cv2.Rodrigues(rvec)[0], tvec.ravel())
        return result, (time.perf_counter() - t0) * 1e3

    rows = {"vpspack": {"ms": [], "pos": [], "rot": [], "ok": 0, "fp": 0}, "opencv": {"ms": [], "pos": [], "rot": [], "ok": 0, "fp": 0}}
    for i, (Rt, tt) in enumerate(truth):
        r = run_vpspack(f"q{i}.png")
        rows["vpspack"]["ms"].append(r["timings"]["total"])
        if r.get("localized"):
            Rc2w = quat_to_R(r["rotation"]) @ np.diag([1.0, -1.0, -1.0])
            R = Rc2w.T
            t = -R @ np.array(r["position"])
            p, a = errors(R, t, Rt, tt)
            rows["vpspack"]["pos"].append(p)
            rows["vpspack"]["rot"].append(a)
            rows["vpspack"]["ok"] += p < 0.1 and a < 1.0
        res, ms = run_opencv(f"q{i}.png")
        rows["opencv"]["ms"].append(ms)
        if res is not None:
            p, a = errors(res[0], res[1], Rt, tt)
            rows["opencv"]["pos"].append(p)
            rows["opencv"]["rot"].append(a)
            rows["opencv"]["ok"] += p < 0.1 and a < 1.0
    for i in range(outside):
        rows["vpspack"]["fp"] += bool(run_vpspack(f"out{i}.png").get("localized"))
        rows["opencv"]["fp"] += run_opencv(f"out{i}.png")[0] is not None

    print(f"end to end: {queries} VGA queries against a {built['points']}-point map, one core; "
          "success = position within 10 cm and rotation within 1 degree")
    print(f"{'pipeline':<10} {'median ms':>10} {'p90 ms':>8} {'recall':>7} {'median pos m':>13} {'median rot°':>12} {'false pos.':>11}")
    for name, r in rows.items():
        med_pos = statistics.median(r["pos"]) if r["pos"] else float("nan")
        med_rot = statistics.median(r["rot"]) if r["rot"] else float("nan")
        print(f"{name:<10} {statistics.median(r['ms']):>10.2f} {np.percentile(r['ms'], 90):>8.2f} {r['ok'] / queries:>7.0%} "
              f"{med_pos:>13.4f} {med_rot:>12.3f} {r['fp']:>6}/{outside}")
    ours, peer = rows["vpspack"], rows["opencv"]
    speed = statistics.median(peer["ms"]) / statistics.median(ours["ms"])
    print(f"RESULT\te2e\tmedian ms per VGA query ({built['points']} points) vs OpenCV ORB+BF+PnP\t{statistics.median(ours['ms']):.2f}\t"
          f"{statistics.median(peer['ms']):.2f}\t{speed:.1f}x faster\t>= 10x, <= 30 ms")
    print(f"RESULT\te2e\trecall (10 cm, 1 deg) vs OpenCV ORB+BF+PnP\t{ours['ok'] / queries:.2f}\t{peer['ok'] / queries:.2f}\t"
          f"{(ours['ok'] + 1e-9) / (peer['ok'] + 1e-9):.2f}\tequal or better")
    print(f"RESULT\te2e\tout-of-map views localized vs OpenCV (>= 12 inliers)\t{ours['fp']}/{outside}\t{peer['fp']}/{outside}\t-\t0")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vpspack", required=True)
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--frames", type=int, default=100, help="reference frames (about 1000 points each)")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--outside", type=int, default=10)
    parser.add_argument("--features", type=int, default=1000)
    args = parser.parse_args()
    main(args.vpspack, args.out, args.frames, args.queries, args.outside, args.features)
