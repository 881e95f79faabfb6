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


def prepare_room(vpspack, work, frames, queries, outside, seed):
    """Renders the room: reference frames with depth, queries with truth, another room."""
    rng = np.random.default_rng(seed)
    room, other = Room(seed), Room(seed + 1000)
    start = time.time()
    refs = []
    for i in range(frames):
        R, t = pose(rng)
        img, depth = room.render(R, t, rng)
        cv2.imwrite(os.path.join(work, f"ref{i}.png"), img)
        refs.append({"image": f"ref{i}.png", "rotation": R, "translation": t, "img": img, "z": depth})
    truth = []
    for i in range(queries):
        R, t = pose(rng)
        img, _ = room.render(R, t, rng)
        cv2.imwrite(os.path.join(work, f"q{i}.png"), img)
        truth.append((f"q{i}.png", R, t))
    outside_names = []
    for i in range(outside):
        R, t = pose(rng)
        img, _ = other.render(R, t, rng)
        cv2.imwrite(os.path.join(work, f"out{i}.png"), img)
        outside_names.append(f"out{i}.png")
    print(f"rendered a room: {frames} reference frames, {queries} queries, {outside} views of another room in {time.time() - start:.1f} s")
    return refs, truth, outside_names, (FX, FY, CX, CY)


def prepare_synth(vpspack, work, frames, queries, seed):
    """`vpspack synth` (the two-floor building): reference frames with depth, queries, out-of-map images."""
    out = os.path.join(work, "synth")
    start = time.time()
    subprocess.run([vpspack, "synth", "--out", out, "--frames", str(frames), "--queries", str(queries), "--seed", str(seed)],
                   check=True, capture_output=True)
    with open(os.path.join(out, "transforms.json")) as f:
        transforms = json.load(f)
    with open(os.path.join(out, "queries.json")) as f:
        qfile = json.load(f)
    k = qfile["intrinsics"]  # integer pixel centres, as the localizer and OpenCV use
    scale = transforms.get("depth_scale", 0.001)
    flip = np.diag([1.0, -1.0, -1.0])
    refs = []
    for fr in transforms["frames"]:
        m = np.array(fr["transform_matrix"])
        R = (m[:3, :3] @ flip).T
        t = -R @ m[:3, 3]
        img = cv2.imread(os.path.join(out, fr["file_path"]), cv2.IMREAD_GRAYSCALE)
        depth = cv2.imread(os.path.join(out, fr["depth_file_path"]), cv2.IMREAD_UNCHANGED).astype(np.float32) * scale
        name = os.path.relpath(os.path.join(out, fr["file_path"]), work)
        refs.append({"image": name, "rotation": R, "translation": t, "img": img, "z": depth})
    truth = []
    for q in qfile["queries"]:
        m = np.array(q["transform_matrix"])
        R = (m[:3, :3] @ flip).T
        truth.append((os.path.relpath(os.path.join(out, q["image"]), work), R, -R @ m[:3, 3]))
    outside_names = [os.path.relpath(os.path.join(out, o["image"]), work) for o in qfile["outOfMap"]]
    print(f"vpspack synth: {len(refs)} frames, {len(truth)} queries, {len(outside_names)} out-of-map images in {time.time() - start:.1f} s")
    return refs, truth, outside_names, (k["fx"], k["fy"], k["cx"], k["cy"])


def main(vpspack, out_dir, frames=100, queries=30, outside=10, features=1000, seed=7, scene="room"):
    cv2.setNumThreads(1)
    os.makedirs(out_dir, exist_ok=True)
    work = os.path.join(out_dir, f"e2e-{scene}")
    os.makedirs(work, exist_ok=True)
    if scene == "synth":
        refs, truth, outside_names, (fx, fy, cx, cy) = prepare_synth(vpspack, work, frames, queries, seed)
    else:
        refs, truth, outside_names, (fx, fy, cx, cy) = prepare_room(vpspack, work, frames, queries, outside, seed)
    K = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]])
    for i, r in enumerate(refs):
        r["depth"] = f"ref{i}.depth"
        r["z"].astype("<f4").tofile(os.path.join(work, r["depth"]))
    with open(os.path.join(work, "frames.json"), "w") as f:
        json.dump({"fx": fx, "fy": fy, "cx": cx, "cy": cy, "frames": [
            {"image": r["image"], "depth": r["depth"], "rotation": r["rotation"].ravel().tolist(), "translation": r["translation"].tolist()}
            for r in refs]}, f)
    pack = os.path.join(work, "map.vpspack")
    built = json.loads(subprocess.run([vpspack, "bench-map", os.path.join(work, "frames.json"), pack, "--features", str(features)],
                                      check=True, capture_output=True, text=True).stdout)

    # OpenCV's map: cv2.ORB on the same frames, lifted with the same depth.
    orb = cv2.ORB_create(nfeatures=features)
    map_points, map_des = [], []
    for r in refs:
        kps, des = orb.detectAndCompute(r["img"], None)
        if des is None:
            continue
        R, t = r["rotation"], r["translation"]
        h, w = r["z"].shape
        for kp, d in zip(kps, des):
            u, v = int(round(kp.pt[0])), int(round(kp.pt[1]))
            if not (0 <= u < w and 0 <= v < h):
                continue
            z = float(r["z"][v, u])
            if not np.isfinite(z) or z <= 0:
                continue
            pc = np.array([(kp.pt[0] - cx) / fx * z, (kp.pt[1] - cy) / fy * z, z])
            map_points.append(R.T @ (pc - t))
            map_des.append(d)
    map_points = np.array(map_points)
    map_des = np.array(map_des)
    print(f"maps: vpspack {built['points']} points, OpenCV {len(map_points)} points")

    def run_vpspack(name):
        out = subprocess.run(["taskset", "-c", "0", vpspack, "localize", os.path.join(work, name), "--pack", pack,
                              "--intrinsics", f"{fx},{fy},{cx},{cy}", "--json"], capture_output=True, text=True).stdout
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

    rows = {"vpspack": {"ms": [], "pos": [], "rot": [], "ok": 0, "fp": 0, "wrong": 0},
            "opencv": {"ms": [], "pos": [], "rot": [], "ok": 0, "fp": 0, "wrong": 0}}
    queries, outside = len(truth), len(outside_names)
    for name, Rt, tt in truth:
        r = run_vpspack(name)
        rows["vpspack"]["ms"].append(r["timings"]["total"])
        if r.get("localized"):
            Rc2w = quat_to_R(r["rotation"]) @ np.diag([1.0, -1.0, -1.0])
            R = Rc2w.T
            t = -R @ np.array(r["position"])
            p, a = errors(R, t, Rt, tt)
            rows["vpspack"]["pos"].append(p)
            rows["vpspack"]["rot"].append(a)
            rows["vpspack"]["ok"] += p < 0.1 and a < 1.0
            rows["vpspack"]["wrong"] += p > 0.5 or a > 5.0
        res, ms = run_opencv(name)
        rows["opencv"]["ms"].append(ms)
        if res is not None:
            p, a = errors(res[0], res[1], Rt, tt)
            rows["opencv"]["pos"].append(p)
            rows["opencv"]["rot"].append(a)
            rows["opencv"]["ok"] += p < 0.1 and a < 1.0
            rows["opencv"]["wrong"] += p > 0.5 or a > 5.0
    for name in outside_names:
        rows["vpspack"]["fp"] += bool(run_vpspack(name).get("localized"))
        rows["opencv"]["fp"] += run_opencv(name)[0] is not None

    print(f"end to end ({scene}): {queries} VGA queries against a {built['points']}-point map, one core; "
          "recall = position within 10 cm and rotation within 1 degree; wrong = reported but off by > 50 cm or > 5 degrees")
    print(f"{'pipeline':<10} {'median ms':>10} {'p90 ms':>8} {'recall':>7} {'median pos m':>13} {'median rot°':>12} {'wrong':>6} {'out-of-map loc.':>16}")
    for name, r in rows.items():
        med_pos = statistics.median(r["pos"]) if r["pos"] else float("nan")
        med_rot = statistics.median(r["rot"]) if r["rot"] else float("nan")
        print(f"{name:<10} {statistics.median(r['ms']):>10.2f} {np.percentile(r['ms'], 90):>8.2f} {r['ok'] / queries:>7.0%} "
              f"{med_pos:>13.4f} {med_rot:>12.3f} {r['wrong']:>6} {r['fp']:>12}/{outside}")
    ours, peer = rows["vpspack"], rows["opencv"]
    speed = statistics.median(peer["ms"]) / statistics.median(ours["ms"])
    tag = f"e2e-{scene}"
    print(f"RESULT\t{tag}\tmedian ms per VGA query ({built['points']} points) vs OpenCV ORB+BF+PnP\t{statistics.median(ours['ms']):.2f}\t"
          f"{statistics.median(peer['ms']):.2f}\t{speed:.1f}x faster\t>= 10x, <= 30 ms")
    print(f"RESULT\t{tag}\trecall (10 cm, 1 deg) vs OpenCV ORB+BF+PnP\t{ours['ok'] / queries:.2f}\t{peer['ok'] / queries:.2f}\t"
          f"{(ours['ok'] + 1e-9) / (peer['ok'] + 1e-9):.2f}\tequal or better")
    print(f"RESULT\t{tag}\twrong poses reported vs OpenCV\t{ours['wrong']}\t{peer['wrong']}\t-\t0")
    print(f"RESULT\t{tag}\tout-of-map views localized vs OpenCV (>= 12 inliers)\t{ours['fp']}/{outside}\t{peer['fp']}/{outside}\t-\t0")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vpspack", required=True)
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--frames", type=int, default=100, help="reference frames (about 1000 points each)")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--outside", type=int, default=10)
    parser.add_argument("--features", type=int, default=1000)
    parser.add_argument("--scene", choices=["room", "synth"], default="room",
                        help="room: six textured planes rendered here; synth: `vpspack synth`'s two-floor building")
    args = parser.parse_args()
    main(args.vpspack, args.out, args.frames, args.queries, args.outside, args.features, scene=args.scene)
