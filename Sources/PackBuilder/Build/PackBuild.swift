public import Foundation
import Localizer
import PackFormat
import VPSImageIO

/// Builds packs from posed captures and COLMAP models.
///
/// Frames are processed one at a time (images are decoded, described and
/// dropped), so memory grows with the venue's points, not with the number of
/// frames: a capture of 10,000 frames needs no more than the map it makes.
public enum PackBuild {
    /// Builds a pack from a transforms.json capture.
    ///
    /// With depth images each feature is back-projected through its depth;
    /// without, features are matched against the previous frames and
    /// triangulated with the known poses (parallax and reprojection checked).
    /// Observations of one 3D point across frames are merged into one point
    /// with representative descriptors; points seen once or whose
    /// observations disagree are dropped.
    public static func fromTransforms(_ file: URL, output: URL, options: BuildOptions,
                                      progress: (BuildProgress) -> Void = { _ in }) throws(BuildError) -> BuildSummary {
        let start = Date()
        let transforms = try TransformsFile.read(file)
        let base = file.deletingLastPathComponent()
        let n = transforms.frames.count
        let validation = validationIndices(count: n, requested: options.validationFrames)
        let poses = try (0..<n).map { i throws(BuildError) in try transforms.pose(of: i) }
        let floors = floorNumbers(poses.map(\.position.y), storey: options.storey)
        let extractor = FeatureExtractor(.init(maxFeatures: options.maxFeatures, parallel: true))
        var merger = PointMerger()
        var window: [FrameFeatures] = []
        var keyframes: [MapKeyframe] = []
        var observations = 0
        let mapping = (0..<n).filter { !validation.contains($0) }
        for (step, i) in mapping.enumerated() {
            let frame = transforms.frames[i]
            let camera = try transforms.intrinsics(of: i)
            let pose = poses[i]
            let image = try loadImage(frame.filePath, base: base, options: options, camera: camera)
            let features = extractor.extract(image.image)
            keyframes.append(keyframe(id: i, name: frame.filePath, pose: pose, camera: camera, floor: floors[i]))
            if let depthPath = frame.depthFilePath {
                let depth = try loadDepth(depthPath, base: base, camera: camera)
                observations += backProject(features, image: image, depth: depth, scale: transforms.metresPerDepthUnit,
                                            pose: pose, camera: camera, frame: i, floor: floors[i], into: &merger)
            } else {
                let current = FrameFeatures(index: i, pose: pose, camera: camera, features: features, image: image.image,
                                            reduction: image.reduction, floor: floors[i])
                observations += triangulate(current, against: window, into: &merger)
                window.append(current)
                if window.count > 6 { window.removeFirst() }
            }
            progress(BuildProgress(stage: "frames", done: step + 1, total: mapping.count))
        }
        let minFrames = mapping.count >= 2 ? 2 : 1
        let points = merger.stablePoints(minFrames: minFrames, maxSpread: 0.05)
        let validationRecords = try validation.sorted().map { i throws(BuildError) in
            ValidationFrame(name: transforms.frames[i].filePath, source: imageURL(transforms.frames[i].filePath, base: base, options: options),
                            pose: poses[i], camera: try transforms.intrinsics(of: i), floor: floors[i])
        }
        return try writePack(points: points.map(MergedPoint.init), keyframes: keyframes, validation: validationRecords,
                             frames: n, observations: observations, output: output, options: options, start: start, progress: progress)
    }

    /// Builds a pack from a COLMAP model: our descriptors are computed at every
    /// observation of every 3D point (the nearest detected feature within 2.5 px).
    public static func fromCOLMAP(_ directory: URL, images: URL, output: URL, options: BuildOptions,
                                  progress: (BuildProgress) -> Void = { _ in }) throws(BuildError) -> BuildSummary {
        let start = Date()
        let model = try COLMAPModel.read(directory: directory)
        let alignment = model.worldAlignment(estimateUp: options.estimateUp)
        let ordered = model.images.values.sorted { $0.id < $1.id }
        let poses = ordered.map { image -> CapturePose in
            var p = model.packPose(of: image, alignment: alignment)
            p.position *= options.scale
            return p
        }
        let floors = floorNumbers(poses.map(\.position.y), storey: options.storey)
        let validation = validationIndices(count: ordered.count, requested: options.validationFrames ?? (ordered.count >= 10 ? nil : 0))
        let extractor = FeatureExtractor(.init(maxFeatures: options.maxFeatures, parallel: true))
        var descriptors: [Int64: [SIMD4<UInt64>]] = [:]
        var keyframes: [MapKeyframe] = []
        var observations = 0
        var imageOptions = options
        imageOptions.imagesDirectory = images
        let mapping = ordered.indices.filter { !validation.contains($0) }
        for (step, k) in mapping.enumerated() {
            let image = ordered[k]
            guard let camera = model.cameras[image.cameraID]?.intrinsics else { continue }
            let decoded = try loadImage(image.name, base: images, options: imageOptions, camera: camera)
            let features = extractor.extract(decoded.image)
            let r = Double(decoded.reduction)
            keyframes.append(keyframe(id: image.id, name: image.name, pose: poses[k], camera: camera, floor: floors[k]))
            let lookup = KeypointGrid(features.keypoints, cell: 8)
            for o in image.observations where o.point3D >= 0 {
                // COLMAP pixel centres are at +0.5; keypoints have them at integers, in the reduced image.
                guard let f = lookup.nearest(x: o.x / r - 0.5, y: o.y / r - 0.5, within: 3) else { continue }
                var list = descriptors[o.point3D, default: []]
                if list.count < 8 { list.append(features.descriptors[f]) }
                descriptors[o.point3D] = list
                observations += 1
            }
            progress(BuildProgress(stage: "images", done: step + 1, total: mapping.count))
        }
        var points: [MergedPoint] = []
        for id in model.points.keys.sorted() {
            guard let list = descriptors[id], let p = model.points[id] else { continue }
            let position = alignment * p.position * options.scale
            let observers = p.track.compactMap { e in ordered.firstIndex { $0.id == e.imageID } }
            let floor = observers.map { floors[$0] }.min() ?? 0
            points.append(MergedPoint(position: position, descriptors: representativeDescriptors(list), colour: SIMD3(Double(p.color.x), Double(p.color.y), Double(p.color.z)),
                                      observations: list.count, floor: floor))
        }
        let validationRecords = try validation.sorted().map { k throws(BuildError) in
            let image = ordered[k]
            guard let camera = model.cameras[image.cameraID]?.intrinsics else {
                throw BuildError.badData("image \(image.id) uses an unknown camera \(image.cameraID)")
            }
            return ValidationFrame(name: image.name, source: images.appendingPathComponent(image.name), pose: poses[k], camera: camera, floor: floors[k])
        }
        return try writePack(points: points, keyframes: keyframes, validation: validationRecords, frames: ordered.count,
                             observations: observations, output: output, options: options, start: start, progress: progress)
    }
}

/// One frame's features with what triangulation needs.
struct FrameFeatures {
    var index: Int
    var pose: CapturePose
    var camera: CaptureCamera
    var features: FeatureSet
    var image: GrayImage
    /// The decoder's reduction: keypoints are in an image `reduction` times smaller than the camera's.
    var reduction: Int
    var floor: Int
}

/// A finished map point.
struct MergedPoint {
    var position: SIMD3<Double>
    var descriptors: [SIMD4<UInt64>]
    /// RGB 0…255.
    var colour: SIMD3<Double>
    var observations: Int
    var floor: Int

    init(position: SIMD3<Double>, descriptors: [SIMD4<UInt64>], colour: SIMD3<Double>, observations: Int, floor: Int) {
        self.position = position
        self.descriptors = descriptors
        self.colour = colour
        self.observations = observations
        self.floor = floor
    }

    init(_ p: PointMerger.Point) {
        self.init(position: p.mean, descriptors: representativeDescriptors(p.descriptors), colour: p.colour / Double(p.count),
                  observations: p.count, floor: p.floor)
    }
}

/// A held-out frame recorded in the pack.
struct ValidationFrame {
    var name: String
    var source: URL
    var pose: CapturePose
    var camera: CaptureCamera
    var floor: Int
}

/// Nearest-keypoint lookup on a coarse grid.
struct KeypointGrid {
    private var cells: [Int: [Int]] = [:]
    private let keypoints: [Keypoint]
    private let cell: Double

    init(_ keypoints: [Keypoint], cell: Double) {
        self.keypoints = keypoints
        self.cell = cell
        for (i, k) in keypoints.enumerated() { cells[key(Double(k.x), Double(k.y)), default: []].append(i) }
    }

    private func key(_ x: Double, _ y: Double) -> Int {
        Int((x / cell).rounded(.down)) &* 100_003 &+ Int((y / cell).rounded(.down))
    }

    func nearest(x: Double, y: Double, within r: Double) -> Int? {
        var best: Int?
        var bestD = r * r
        let cx = Int((x / cell).rounded(.down)), cy = Int((y / cell).rounded(.down))
        for dx in -1...1 {
            for dy in -1...1 {
                for i in cells[(cx + dx) &* 100_003 &+ (cy + dy)] ?? [] {
                    let ddx = Double(keypoints[i].x) - x, ddy = Double(keypoints[i].y) - y
                    let d = ddx * ddx + ddy * ddy
                    if d <= bestD {
                        bestD = d
                        best = i
                    }
                }
            }
        }
        return best
    }
}
