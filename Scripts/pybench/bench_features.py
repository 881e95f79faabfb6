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
        t0 = time.thread_time()
        kps, _ = orb.detectAndCompute(img, None)
        times.append((time.thread_time() - t0) * 1000)
        n = len(kps)
    times.sort()
    return times[len(times) // 2], times[0], n


def time_ours(vpspack, path, count, repeats):
    out = subprocess.run([vpspack, "bench-features", path, "--count", str(count), "--repeat", str(repeats), "--json"],
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result["medianMs"], result["minMs"], result["features"]


def main(vpspack, out_dir, repeats=30):
    paths = images.ensure(out_dir)
    print("== feature extraction: ms of thread CPU time per image, median and fastest of %d runs, one thread" % repeats)
    print("   ratio = OpenCV time / our time (> 1: we are faster); the machine is shared, so the")
    print("   fastest-run ratio is the steadier figure")
    print(f"{'image':6} {'N':>5} {'ours med':>9} {'min':>7} {'n':>5} {'cv2 med':>8} {'min':>7} {'n':>5} {'ratio med':>9} {'ratio min':>9}")
    results = []
    for name in ("vga", "1080p"):
        for count in (500, 1000, 2000):
            ours, ours_min, n_ours = time_ours(vpspack, paths[name], count, repeats)
            cv, cv_min, n_cv = time_orb(paths[name], count, repeats, 1)
            print(f"{name:6} {count:5d} {ours:9.2f} {ours_min:7.2f} {n_ours:5d} {cv:8.2f} {cv_min:7.2f} {n_cv:5d} {cv / ours:9.2f} {cv_min / ours_min:9.2f}")
            results.append(f"RESULT\tfeatures\t{name} {count} features, median CPU ms vs cv2.ORB\t{ours:.2f}\t{cv:.2f}\t"
                           f"{cv / ours:.2f}x faster\t>= 1x (no slower)")
    for line in results:
        print(line)
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
