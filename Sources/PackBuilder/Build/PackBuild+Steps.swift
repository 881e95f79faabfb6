import Foundation
import Localizer
import PackFormat
import VPSImageIO

extension PackBuild {
    /// Frames to hold out: evenly spread, about one in ten, at most eight; none below five frames.
    static func validationIndices(count n: Int, requested: Int?) -> Set<Int> {
        let k = min(requested ?? min(8, n / 10), max(0, n - 2))
        guard k > 0 else { return [] }
        return Set((0..<k).map { j in min(n - 1, Int((Double(j) + 0.5) * Double(n) / Double(k))) })
    }

    /// Floor numbers from camera heights: storeys above the lowest camera, rounded.
    static func floorNumbers(_ heights: [Double], storey: Double) -> [Int] {
        guard let low = heights.min(), storey > 0 else { return heights.map { _ in 0 } }
        return heights.map { Int((($0 - low) / storey).rounded()) }
    }

    static func imageURL(_ path: String, base: URL, options: BuildOptions) -> URL {
        if let dir = options.imagesDirectory { return dir.appendingPathComponent((path as NSString).lastPathComponent) }
        return path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
    }

    /// Decodes a frame to gray (reduced when `maxDimension` asks) and checks that its size is the camera's.
    static func loadImage(_ path: String, base: URL, options: BuildOptions, camera: CaptureCamera) throws(BuildError) -> DecodedImage {
        let url = imageURL(path, base: base, options: options)
        let decoded: DecodedImage
        do {
            decoded = try ImageDecoder.decode(path: url.path, maxDimension: options.maxDimension)
        } catch {
            throw error.kind == .io ? .io("cannot read the frame image \(url.path): \(error.reason)") : .badData("the frame image \(url.path) cannot be decoded: \(error.reason)")
        }
        guard decoded.originalWidth == camera.width, decoded.originalHeight == camera.height else {
            throw .badData("the frame image \(url.path) is \(decoded.originalWidth)x\(decoded.originalHeight) but its camera says \(camera.width)x\(camera.height)")
        }
        return decoded
    }

    static func loadDepth(_ path: String, base: URL, camera: CaptureCamera) throws(BuildError) -> [UInt16] {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
        let depth = try DepthImage.read(url)
        guard depth.width == camera.width, depth.height == camera.height else {
            throw .badData("the depth image \(url.path) is \(depth.width)x\(depth.height) but its frame is \(camera.width)x\(camera.height)")
        }
        return depth.values
    }

    static func keyframe(id: Int, name: String, pose: CapturePose, camera: CaptureCamera, floor: Int) -> MapKeyframe {
        let q = pose.rotation.quaternion
        return MapKeyframe(id: id, name: name, position: [pose.position.x, pose.position.y, pose.position.z],
                           rotation: [q.x, q.y, q.z, q.w], fx: camera.fx, fy: camera.fy,
                           cx: camera.localizerCX, cy: camera.localizerCY, width: camera.width, height: camera.height, floor: floor)
    }

    /// The full-size, file-convention pixel (centres at +0.5) of a keypoint
    /// found at integer-centred coordinates in an image reduced by `d`.
    static func pixel(_ k: Keypoint, _ d: Int) -> SIMD2<Double> {
        SIMD2((Double(k.x) + 0.5) * Double(d), (Double(k.y) + 0.5) * Double(d))
    }

    /// Back-projects every feature with a trustworthy depth; returns the observations added.
    static func backProject(_ features: FeatureSet, image: DecodedImage, depth: [UInt16], scale: Double, pose: CapturePose,
                            camera: CaptureCamera, frame: Int, floor: Int, into merger: inout PointMerger) -> Int {
        let w = camera.width, h = camera.height
        let r = image.reduction
        var added = 0
        for (k, d) in zip(features.keypoints, features.descriptors) {
            let full = pixel(k, r)
            let x = Int((full.x - 0.5).rounded()), y = Int((full.y - 0.5).rounded())
            guard x >= 1, y >= 1, x < w - 1, y < h - 1 else { continue }
            // Depth at the corner and its 3×3 neighbourhood: skip depth edges, where
            // the corner may belong to either surface.
            var lo = UInt16.max, hi: UInt16 = 0
            for dy in -1...1 {
                for dx in -1...1 {
                    let v = depth[(y + dy) * w + x + dx]
                    lo = min(lo, v)
                    hi = max(hi, v)
                }
            }
            guard lo > 0, Double(hi - lo) <= 0.03 * Double(lo) else { continue }
            let z = Double(depth[y * w + x]) * scale
            let world = pose.toWorld(camera.ray(full) * z)
            let level = pow(1.2, Double(k.octave)) * Double(r)
            let radius = max(0.015, 3 * level * z / camera.fx)
            let g = Double(image.image[min(image.image.width - 1, Int(k.x.rounded())), min(image.image.height - 1, Int(k.y.rounded()))])
            merger.add(world, descriptor: d, radius: radius, frame: frame, colour: SIMD3(g, g, g), floor: floor)
            added += 1
        }
        return added
    }

    /// The smallest parallax (degrees) a triangulated match needs.
    static let minimumParallax = 3.0

    /// Matches a frame's features against earlier frames and triangulates the
    /// matches that pass the checks: best match with a ratio test, parallax of
    /// at least ``minimumParallax``, in front of both cameras, reprojection
    /// error under 2 px in both. Of the frames that pass, the one with the
    /// widest parallax is used. Returns the observations added.
    static func triangulate(_ current: FrameFeatures, against window: [FrameFeatures], into merger: inout PointMerger) -> Int {
        var added = 0
        let cur = current.features
        let others = window.reversed().filter { length($0.pose.position - current.pose.position) > 0.05 }
        for (i, da) in cur.descriptors.enumerated() {
            // Of the earlier frames where this feature triangulates well, the one with the widest parallax
            // (the newest on ties): depth error shrinks as parallax grows.
            var chosen: (x: SIMD3<Double>, other: FrameFeatures, j: Int, parallax: Double)?
            for other in others {
                let b = other.features
                var best = Int.max, second = Int.max, bestJ = -1
                for (j, db) in b.descriptors.enumerated() {
                    let h = hamming(da, db)
                    if h < best {
                        second = best
                        best = h
                        bestJ = j
                    } else if h < second {
                        second = h
                    }
                }
                guard bestJ >= 0, best <= 50, Double(best) < 0.8 * Double(second) else { continue }
                let ka = cur.keypoints[i], kb = b.keypoints[bestJ]
                let ra = current.pose.rotation * current.camera.ray(pixel(ka, current.reduction))
                let rb = other.pose.rotation * other.camera.ray(pixel(kb, other.reduction))
                guard let x = Triangulation.point(origins: [current.pose.position, other.pose.position], directions: [ra, rb]) else { continue }
                let parallax = Triangulation.parallaxDegrees(x, centres: [current.pose.position, other.pose.position])
                guard parallax >= minimumParallax else { continue }
                var ok = true
                for (f, k) in [(current, ka), (other, kb)] {
                    let c = f.pose.toCamera(x)
                    guard c.z < -0.1, -c.z < 30, let p = f.camera.project(c) else { ok = false; break }
                    let e = p - pixel(k, f.reduction)
                    if (e * e).sum() > 4 * Double(f.reduction * f.reduction) { ok = false; break }
                }
                guard ok else { continue }
                if parallax > chosen?.parallax ?? 0 { chosen = (x, other, bestJ, parallax) }
            }
            guard let (x, other, bestJ, _) = chosen else { continue }
            let ka = cur.keypoints[i]
            let depthA = -current.pose.toCamera(x).z
            let radius = max(0.02, 4 * pow(1.2, Double(ka.octave)) * Double(current.reduction) * depthA / current.camera.fx)
            let g = Double(current.image[Int(ka.x.rounded()), Int(ka.y.rounded())])
            merger.add(x, descriptor: other.features.descriptors[bestJ], radius: radius, frame: other.index, colour: SIMD3(g, g, g), floor: current.floor)
            merger.add(x, descriptor: da, radius: radius, frame: current.index, colour: SIMD3(g, g, g), floor: current.floor)
            added += 2
        }
        return added
    }
}
