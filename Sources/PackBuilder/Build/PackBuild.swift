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
