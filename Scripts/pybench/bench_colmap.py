"""COLMAP import quality: build packs from a COLMAP model and localize its images.

usage: bench_colmap.py DATA_DIR OUT_DIR NAME=VPSPACK_BINARY [NAME=VPSPACK_BINARY ...]

The peer, "opencv-sift", does the same with COLMAP's own kind of feature: every
observation gets OpenCV SIFT descriptors computed at its position at five sizes
(4 to 64 px; COLMAP stores no scale either), queries are detected and described by
OpenCV SIFT, matched with a 0.8 ratio test between different points, and posed by
cv2.solvePnPRansac (4 px, at least 12 inliers), in COLMAP's frame.

DATA_DIR holds reconstruction/ (a COLMAP text model) and images/. For every
binary (the first is "ours", the others are peers measured in the same run):

- full: a pack from all images; each image and its variants (resized to 0.7 and
  0.5, a centre crop of 2/3, that crop at 0.6) is localized against it.
- held out: one pack per image with that image left out of the map (the model's
  image ids are renumbered so that `--validation 1` holds it out); the image and
  its variants are localized against the pack that never saw it.

Ground truth is COLMAP's pose, converted by the pack itself (map/keyframes.json of
the full pack). Position errors are in model units and as a fraction of the mean
distance between cameras; rotation errors in degrees.
"""
import json
import math
import os
import subprocess
import sys

import cv2
import numpy as np


def read_text_model(directory):
    cams = [l for l in open(os.path.join(directory, "cameras.txt")) if l.strip() and not l.startswith("#")]
    imgs = [l.rstrip("\n") for l in open(os.path.join(directory, "images.txt")) if not l.startswith("#")]
    pts = [l for l in open(os.path.join(directory, "points3D.txt")) if l.strip() and not l.startswith("#")]
    return cams, imgs, pts


def renumbered_model(src, dst, held_out_name):
    """Writes the model with image ids renumbered so that `held_out_name` sorts third (index 2)."""
    cams, imgs, pts = read_text_model(src)
    pairs = [(imgs[i], imgs[i + 1]) for i in range(0, len(imgs) - 1, 2) if imgs[i].strip()]
    names = {int(h.split()[0]): h.split()[9] for h, _ in pairs}
    others = [i for i in sorted(names) if names[i] != held_out_name]
    held = [i for i in names if names[i] == held_out_name][0]
    order = others[:2] + [held] + others[2:]
    new_id = {old: n + 1 for n, old in enumerate(order)}
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, "cameras.txt"), "w") as f:
        f.writelines(cams)
    with open(os.path.join(dst, "images.txt"), "w") as f:
        for h, obs in pairs:
            fields = h.split()
            fields[0] = str(new_id[int(fields[0])])
            f.write(" ".join(fields) + "\n" + obs + "\n")
    with open(os.path.join(dst, "points3D.txt"), "w") as f:
        for line in pts:
            fields = line.split()
            track = fields[8:]
            for t in range(0, len(track), 2):
                track[t] = str(new_id[int(track[t])])
            f.write(" ".join(fields[:8] + track) + "\n")


def variants(data, out):
    """Writes each image's variants with sidecar intrinsics (pixel centres at integers)."""
    cams, imgs, _ = read_text_model(os.path.join(data, "reconstruction"))
    c = cams[0].split()
    assert c[1] == "SIMPLE_PINHOLE", "the bench reads SIMPLE_PINHOLE models"
    f, cx, cy = float(c[4]), float(c[5]) - 0.5, float(c[6]) - 0.5
    names = sorted(l.split()[9] for l in imgs[0::2] if l.strip())
    os.makedirs(out, exist_ok=True)
    made = []
    for name in names:
        img = cv2.imread(os.path.join(data, "images", name))
        h, w = img.shape[:2]
        stem = os.path.splitext(name)[0]
        cw, ch = (2 * w) // 3, (2 * h) // 3
        x0, y0 = (w - cw) // 2, (h - ch) // 2
        crop = img[y0:y0 + ch, x0:x0 + cw]
        for tag, picture, fx, px, py in [
            ("orig", img, f, cx, cy),
            ("s0.7", None, None, None, None),
            ("s0.5", None, None, None, None),
            ("crop", crop, f, cx - x0, cy - y0),
            ("crop-s0.6", None, None, None, None),
        ]:
            if tag.startswith("s") or tag == "crop-s0.6":
                base, bf, bx, by = (crop, f, cx - x0, cy - y0) if tag.startswith("crop") else (img, f, cx, cy)
                s = float(tag.split("s")[-1])
                bh, bw = base.shape[:2]
                nw, nh = round(bw * s), round(bh * s)
                picture = cv2.resize(base, (nw, nh), interpolation=cv2.INTER_AREA)
                sx, sy = nw / bw, nh / bh
                fx, px, py = bf * (sx + sy) / 2, (bx + 0.5) * sx - 0.5, (by + 0.5) * sy - 0.5
            path = os.path.join(out, f"{stem}-{tag}.jpg")
            cv2.imwrite(path, picture, [cv2.IMWRITE_JPEG_QUALITY, 95])
            ph, pw = picture.shape[:2]
            json.dump({"fx": fx, "fy": fx, "cx": px, "cy": py, "width": pw, "height": ph}, open(path[:-4] + ".json", "w"))
            made.append((name, tag, path))
    return made


def quat_angle(a, b):
    a, b = np.array(a) / np.linalg.norm(a), np.array(b) / np.linalg.norm(b)
    return math.degrees(2 * math.acos(min(1.0, abs(float(np.dot(a, b))))))


def build(binary, model, images, pack, extra):
    cmd = [binary, "build", "--colmap", model, "--images", images, "-o", pack, "--tour", "bench", "--version", "1", "--json",
           "--created", "2026-01-01T00:00:00Z"] + extra
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def localize(binary, pack, paths):
    run = subprocess.run([binary, "localize", "--pack", pack, "--json"] + paths, capture_output=True, text=True)
    results = [json.loads(l) for l in run.stdout.splitlines() if l.startswith("{")]
    return {r["image"]: r for r in results}


def score(result, truth):
    if not result.get("localized"):
        return {"localized": False, "inliers": result.get("inliers", 0)}
    return {"localized": True, "inliers": result["inliers"],
            "position": float(np.linalg.norm(np.array(result["position"]) - np.array(truth["position"]))),
            "rotation": quat_angle(result["rotation"], truth["rotation"])}


def read_poses(directory):
    """COLMAP's images: name -> (R world-to-camera, t, [(x, y, point id)])."""
    _, imgs, pts = read_text_model(directory)
    images = {}
    for i in range(0, len(imgs) - 1, 2):
        if not imgs[i].strip():
            continue
        f = imgs[i].split()
        qw, qx, qy, qz = map(float, f[1:5])
        r = np.array([[1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw)],
                      [2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw)],
                      [2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)]])
        o = imgs[i + 1].split()
        obs = [(float(o[j]), float(o[j + 1]), int(o[j + 2])) for j in range(0, len(o), 3)]
        images[f[9]] = (r, np.array(list(map(float, f[5:8]))), obs)
    points = {int(l.split()[0]): np.array(list(map(float, l.split()[1:4]))) for l in pts}
    return images, points


def opencv_peer(data, made, names):
    """The SIFT peer: full map and one map per held-out image; rows as score() gives them."""
    images, points = read_poses(os.path.join(data, "reconstruction"))
    sift = cv2.SIFT_create()
    per_image = {}
    for name in names:
        gray = cv2.imread(os.path.join(data, "images", name), cv2.IMREAD_GRAYSCALE)
        obs = [(x - 0.5, y - 0.5, pid) for x, y, pid in images[name][2] if pid >= 0 and pid in points]
        found = []
        for size in [4, 8, 16, 32, 64]:
            kps = [cv2.KeyPoint(x, y, size, 0) for x, y, _ in obs]
            kept, des = sift.compute(gray, kps)
            # compute() drops keypoints it cannot describe; match the survivors back by position.
            where = {(round(o[0], 3), round(o[1], 3)): o[2] for o in obs}
            for k, d in zip(kept, des):
                pid = where.get((round(k.pt[0], 3), round(k.pt[1], 3)))
                if pid is not None:
                    found.append((pid, d))
        per_image[name] = found

    def localize_with(map_names, query):
        ids = [pid for n in map_names for pid, _ in per_image[n]]
        des = np.array([d for n in map_names for _, d in per_image[n]], dtype=np.float32)
        k = json.load(open(query[:-4] + ".json"))
        gray = cv2.imread(query, cv2.IMREAD_GRAYSCALE)
        kps, qd = sift.detectAndCompute(gray, None)
        if qd is None or len(kps) < 4:
            return {"localized": False, "inliers": 0}
        matches = cv2.BFMatcher(cv2.NORM_L2).knnMatch(qd, des, k=8)
        obj, img = [], []
        for m in matches:
            if not m:
                continue
            other = next((x for x in m[1:] if ids[x.trainIdx] != ids[m[0].trainIdx]), None)
            if other is None or m[0].distance < 0.8 * other.distance:
                obj.append(points[ids[m[0].trainIdx]])
                img.append(kps[m[0].queryIdx].pt)
        if len(obj) < 6:
            return {"localized": False, "inliers": 0}
        kmat = np.array([[k["fx"], 0, k["cx"]], [0, k["fy"], k["cy"]], [0, 0, 1]])
        ok, rvec, tvec, inl = cv2.solvePnPRansac(np.array(obj), np.array(img), kmat, None, reprojectionError=4.0,
                                                 iterationsCount=2000, confidence=0.999)
        n = 0 if inl is None else len(inl)
        if not ok or n < 12:
            return {"localized": False, "inliers": n}
        r_est = cv2.Rodrigues(rvec)[0]
        r_true, t_true, _ = images[os.path.basename(query).split("-")[0] + ".jpg"]
        c_est, c_true = -r_est.T @ tvec.ravel(), -r_true.T @ t_true
        cos = (np.trace(r_est @ r_true.T) - 1) / 2
        return {"localized": True, "inliers": n, "position": float(np.linalg.norm(c_est - c_true)),
                "rotation": math.degrees(math.acos(max(-1.0, min(1.0, cos))))}

    rows = [("full", name, tag, localize_with(names, path)) for name, tag, path in made]
    for name in names:
        rows += [("held out", name, tag, localize_with([n for n in names if n != name], path)) for n2, tag, path in made if n2 == name]
    used = {pid for n in names for pid, _ in per_image[n]}
    return {"points": len(used), "descriptors": sum(len(per_image[n]) for n in names), "rows": rows}


def main():
    data, out = sys.argv[1], sys.argv[2]
    binaries = [a.split("=", 1) for a in sys.argv[3:]]
    made = variants(data, os.path.join(out, "variants"))
    names = sorted({m[0] for m in made})
    report = {}
    for label, binary in binaries:
        work = os.path.join(out, label)
        os.makedirs(work, exist_ok=True)
        full = os.path.join(work, "full.vpspack")
        summary = build(binary, os.path.join(data, "reconstruction"), os.path.join(data, "images"), full, [])
        keyframes = json.loads(subprocess.run(["sh", "-c", f"zstd -dc '{full}' | tar xOf - map/keyframes.json"],
                                              check=True, capture_output=True, text=True).stdout)["keyframes"]
        truth = {k["name"]: k for k in keyframes}
        centres = [np.array(k["position"]) for k in keyframes]
        baseline = float(np.mean([np.linalg.norm(a - b) for i, a in enumerate(centres) for b in centres[i + 1:]]))
        rows = []
        found = localize(binary, full, [m[2] for m in made])
        for name, tag, path in made:
            rows.append(("full", name, tag, score(found.get(path, {}), truth[name])))
        for name in names:
            model = os.path.join(work, f"model-{name}")
            renumbered_model(os.path.join(data, "reconstruction"), model, name)
            pack = os.path.join(work, f"without-{name}.vpspack")
            build(binary, model, os.path.join(data, "images"), pack, ["--validation", "1"])
            mine = [m for m in made if m[0] == name]
            found = localize(binary, pack, [m[2] for m in mine])
            for _, tag, path in mine:
                rows.append(("held out", name, tag, score(found.get(path, {}), truth[name])))
        report[label] = {"points": summary["points"], "descriptors": summary["descriptors"], "baseline": baseline, "rows": rows}

    labels = [b[0] for b in binaries]
    report["opencv-sift"] = opencv_peer(data, made, names)
    report["opencv-sift"]["baseline"] = report[labels[0]]["baseline"]
    labels.append("opencv-sift")
    print(f"model: {len(names)} images; mean distance between cameras {report[labels[0]]['baseline']:.3f} model units")
    for label in labels:
        r = report[label]
        print(f"{label}: {r['points']} points, {r['descriptors']} descriptors")
    head = f"{'set':9} {'image':7} {'variant':10}" + "".join(f" | {l[:22]:>22}" for l in labels)
    print(head)
    print("-" * len(head))
    for i, (kind, name, tag, _) in enumerate(report[labels[0]]["rows"]):
        cells = ""
        for label in labels:
            s = report[label]["rows"][i][3]
            if s["localized"]:
                cells += f" | {s['inliers']:4d} {s['position']:6.3f} {s['rotation']:6.2f}d"
            else:
                cells += f" | {s['inliers']:4d} {'not localized':>15}"
        print(f"{kind:9} {name:7} {tag:10}{cells}")
    print("cells: inliers, position error (model units), rotation error (degrees)")
    for label in labels:
        rows = report[label]["rows"]
        for kind in ["full", "held out"]:
            sel = [r[3] for r in rows if r[0] == kind]
            ok = [s for s in sel if s["localized"]]
            med_p = float(np.median([s["position"] for s in ok])) if ok else float("nan")
            med_r = float(np.median([s["rotation"] for s in ok])) if ok else float("nan")
            med_i = float(np.median([s["inliers"] for s in sel]))
            print(f"{label} {kind}: localized {len(ok)}/{len(sel)}, median inliers {med_i:.0f}, "
                  f"median position error {med_p:.4f} ({100 * med_p / report[label]['baseline']:.2f} % of the camera spacing), "
                  f"median rotation error {med_r:.3f} deg")
    json.dump(report, open(os.path.join(out, "report.json"), "w"), indent=1)

    def figures(label):
        r = report[label]
        out = {"points": r["points"]}
        for kind in ["full", "held out"]:
            sel = [row[3] for row in r["rows"] if row[0] == kind]
            ok = [x for x in sel if x["localized"]]
            out[f"{kind} localized"] = len(ok)
            out[f"{kind} within 2 % of spacing, 1 deg"] = sum(1 for x in ok if x["position"] <= 0.02 * r["baseline"] and x["rotation"] <= 1)
            out[f"{kind} median inliers"] = float(np.median([x["inliers"] for x in sel]))
        return out

    ours, peer = figures(labels[0]), figures("opencv-sift")
    n = len(made)
    for measure, value in ours.items():
        ratio = f"{value / peer[measure]:.2f}" if peer[measure] else "-"
        unit = f" (of {n})" if "localized" in measure or "within" in measure else ""
        print(f"RESULT\tcolmap\t{measure}{unit}\t{value:g}\t{peer[measure]:g}\t{ratio}\t")


if __name__ == "__main__":
    main()
