"""Peer pipeline for Scripts/bench-accuracy: OpenCV matching + poselib pose.

Reads a pack archive's map (points and descriptors, as docs/map-format.md
lays them out), the query features vpspack extracted (evaluate
--dump-features), matches them with OpenCV's brute-force Hamming matcher and
a ratio test between different points, and estimates each pose with poselib's
LO-RANSAC P3P and bundle refinement. Same map, same query features, same
ground truth as vpspack's own run: only matching and pose estimation differ.
"""
import io
import json
import math
import os
import struct
import subprocess
import sys
import tarfile

import cv2
import numpy as np
import poselib

MIN_INLIERS = 30  # the peer's acceptance gate (poselib has no confidence score)


def read_map(archive):
    raw = subprocess.run(["zstd", "-dc", archive], check=True, capture_output=True).stdout
    files = {}
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        for m in tar.getmembers():
            if m.name in ("map/points.bin", "map/descriptors.bin"):
                files[m.name] = tar.extractfile(m).read()
    pts = files["map/points.bin"]
    n = struct.unpack_from("<I", pts, 8)[0]
    rec = np.frombuffer(pts, dtype=np.uint8, offset=32, count=16 * n).reshape(n, 16)
    xyz = rec[:, :12].copy().view(np.float32).reshape(n, 3).astype(np.float64)
    d = files["map/descriptors.bin"]
    m = struct.unpack_from("<I", d, 8)[0]
    desc = np.frombuffer(d, dtype=np.uint8, offset=32, count=32 * m).reshape(m, 32)
    owners = np.frombuffer(d, dtype="<u4", offset=32 + 32 * m, count=m).astype(np.int64)
    return xyz, desc, owners


def read_features(path):
    b = open(path, "rb").read()
    n = struct.unpack_from("<I", b, 0)[0]
    rec = np.frombuffer(b, dtype=np.uint8, offset=4, count=40 * n).reshape(n, 40)
    xy = rec[:, :8].copy().view(np.float32).reshape(n, 2).astype(np.float64)
    return xy, rec[:, 8:].copy()


def quat_to_matrix(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def rotation_angle(a, b):
    c = (np.trace(a.T @ b) - 1) / 2
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def localize(xy, qdesc, xyz, desc, owners, camera, matcher):
    if len(xy) < 4:
        return None
    knn = matcher.knnMatch(qdesc, desc, k=4)
    p2, p3 = [], []
    for cands in knn:
        if not cands:
            continue
        best = cands[0]
        second = next((c for c in cands[1:] if owners[c.trainIdx] != owners[best.trainIdx]), None)
        if best.distance > 64:
            continue
        if second is not None and best.distance >= 0.8 * second.distance:
            continue
        p2.append(xy[best.queryIdx])
        p3.append(xyz[owners[best.trainIdx]])
    if len(p2) < 6:
        return None
    pose, info = poselib.estimate_absolute_pose(np.array(p2), np.array(p3), camera,
                                                {"max_reproj_error": 4.0, "max_iterations": 10000}, {})
    if info["num_inliers"] < MIN_INLIERS:
        return None
    r = np.array(pose.R)
    t = np.array(pose.t)
    centre = -r.T @ t
    rot = r.T @ np.diag([1.0, -1.0, -1.0])  # camera-to-pack, OpenGL camera axes
    return centre, rot, info["num_inliers"]


def main(capture, archive, features, label):
    truth = json.load(open(os.path.join(capture, "queries.json")))
    k = truth["intrinsics"]
    camera = {"model": "PINHOLE", "width": k["width"], "height": k["height"], "params": [k["fx"], k["fy"], k["cx"], k["cy"]]}
    xyz, desc, owners = read_map(archive)
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    pos_err, rot_err, results = [], [], []
    for q in truth["queries"]:
        name = os.path.splitext(os.path.basename(q["image"]))[0]
        xy, qd = read_features(os.path.join(features, name + ".feat"))
        r = localize(xy, qd, xyz, desc, owners, camera, matcher)
        if r is None:
            results.append((name, None, None))
            continue
        centre, rot, _ = r
        e = float(np.linalg.norm(centre - np.array(q["position"])))
        a = rotation_angle(rot, quat_to_matrix(q["rotation"]))
        results.append((name, e, a))
        pos_err.append(e)
        rot_err.append(a)
    false_pos = 0
    for q in truth["outOfMap"]:
        name = os.path.splitext(os.path.basename(q["image"]))[0]
        xy, qd = read_features(os.path.join(features, name + ".feat"))
        if localize(xy, qd, xyz, desc, owners, camera, matcher) is not None:
            false_pos += 1
    n = len(results)

    def recall(m, d):
        return sum(1 for _, e, a in results if e is not None and e <= m and a <= d) / max(1, n)

    summary = {
        "queries": n, "localized": len(pos_err),
        "recall_5cm_1deg": recall(0.05, 1), "recall_25cm_2deg": recall(0.25, 2), "recall_50cm_5deg": recall(0.5, 5),
        "medianPositionError": float(np.median(pos_err)) if pos_err else -1,
        "medianRotationError": float(np.median(rot_err)) if rot_err else -1,
        "outOfMap": len(truth["outOfMap"]), "falseLocalizations": false_pos,
    }
    print(json.dumps({"summary": summary}))


if __name__ == "__main__":
    main(*sys.argv[1:5])
