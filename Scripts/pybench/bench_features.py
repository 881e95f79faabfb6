"""Feature extraction: vpspack's extractor beside cv2.ORB with the same feature count."""
import json
import subprocess
import sys
import time

import cv2

import images


def time_orb(path, count, repeats, threads):
    cv2.setNumThreads(threads)
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    orb = cv2.ORB_create(nfeatures=count)
    orb.detectAndCompute(img, None)
    times = []
    n = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        kps, _ = orb.detectAndCompute(img, None)
        times.append((time.perf_counter() - t0) * 1000)
        n = len(kps)
    times.sort()
    return times[len(times) // 2], n


def time_ours(vpspack, path, count, repeats):
    out = subprocess.run([vpspack, "bench-features", path, "--count", str(count), "--repeat", str(repeats), "--json"],
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result["medianMs"], result["features"]


def main(vpspack, out_dir, repeats=30):
    paths = images.ensure(out_dir)
    print("== feature extraction (median ms per image; ratio = OpenCV / ours, > 1 means we are faster)")
    print(f"{'image':8} {'N':>5} {'ours ms':>9} {'n':>5} {'cv2 1thr':>9} {'n':>5} {'ratio':>6} {'cv2 thr':>8} {'ratio':>6}")
    for name in ("vga", "1080p"):
        for count in (500, 1000, 2000):
            ours, n_ours = time_ours(vpspack, paths[name], count, repeats)
            cv1, n_cv = time_orb(paths[name], count, repeats, 1)
            cvn, _ = time_orb(paths[name], count, repeats, 0)
            print(f"{name:8} {count:5d} {ours:9.2f} {n_ours:5d} {cv1:9.2f} {n_cv:5d} {cv1 / ours:6.2f} {cvn:8.2f} {cvn / ours:6.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
