"""COLMAP import quality: build packs from a COLMAP model and localize its images.

usage: bench_colmap.py DATA_DIR OUT_DIR NAME=VPSPACK_BINARY [NAME=VPSPACK_BINARY ...]

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


if __name__ == "__main__":
    main()
