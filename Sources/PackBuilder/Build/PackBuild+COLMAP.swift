public import Foundation
import Localizer
import PackFormat
import VPSImageIO

extension PackBuild {
    /// Builds a pack from a COLMAP model: our descriptors are computed at every
    /// observation of every 3D point (``describeObservations(_:in:extractor:)``),
    /// and each point keeps representative descriptors as captures do. Points
    /// none of whose observations lies near a corner of ours are left out.
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
        let mapping = ordered.indices.filter { !validation.contains($0) }
        // The query side's extractor: same pyramid, detector and descriptor, so map and query descriptors compare.
        let extractor = FeatureExtractor(LocalizerOptions().features)
        var descriptors: [Int64: [SIMD4<UInt64>]] = [:]
        var keyframes: [MapKeyframe] = []
        var observations = 0
        var imageOptions = options
        imageOptions.imagesDirectory = images
        for (step, k) in mapping.enumerated() {
            let image = ordered[k]
            guard let camera = model.cameras[image.cameraID]?.intrinsics else { continue }
            let decoded = try loadImage(image.name, base: images, options: imageOptions, camera: camera)
            keyframes.append(keyframe(id: image.id, name: image.name, pose: poses[k], camera: camera, floor: floors[k]))
            let seen = image.observations.filter { $0.point3D >= 0 && model.points[$0.point3D] != nil }
            for (point, d) in describeObservations(seen, in: decoded, extractor: extractor) {
                var list = descriptors[point, default: []]
                if list.count < PointMerger.maxStoredDescriptors { list.append(d) }
                descriptors[point] = list
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

    /// How far (level pixels) an observation may lie from the corner described for it.
    static let colmapSnapRadius: Float = 1.5
    /// How many descriptors each observation gives at most.
    static let colmapDescriptorsPerObservation = 2

    /// Our descriptors for one image's observations: at every pyramid level,
    /// the FAST corner nearest the observation within ``colmapSnapRadius``
    /// level pixels is described; the ``colmapDescriptorsPerObservation``
    /// with the strongest Harris response are kept (the corners the
    /// localizer's extractor most likely reports for that point). An
    /// observation with no corner near it at any level gives none.
    static func describeObservations(_ seen: [COLMAPModel.Observation], in decoded: DecodedImage,
                                     extractor: FeatureExtractor) -> [(Int64, SIMD4<UInt64>)] {
        let levels = extractor.levelCount(width: decoded.image.width, height: decoded.image.height)
        let r = Double(decoded.reduction)
        var requests: [FeatureExtractor.PositionRequest] = []
        requests.reserveCapacity(seen.count * levels)
        for o in seen {
            // COLMAP pixel centres are at +0.5; ours are at integers, in the possibly reduced image.
            let x = Float(o.x / r - 0.5), y = Float(o.y / r - 0.5)
            for level in 0..<levels { requests.append(.init(x: x, y: y, level: level, snapRadius: colmapSnapRadius)) }
        }
        let out = extractor.describe(decoded.image, at: requests)
        var result: [(Int64, SIMD4<UInt64>)] = []
        for (n, o) in seen.enumerated() {
            var found: [(response: Float, level: Int, descriptor: SIMD4<UInt64>)] = []
            for level in 0..<levels {
                if case .described(let k, let d) = out[n * levels + level] { found.append((k.response, level, d)) }
            }
            // Strongest first; equal responses by level, so the order is deterministic.
            found.sort { $0.response != $1.response ? $0.response > $1.response : $0.level < $1.level }
            for f in found.prefix(colmapDescriptorsPerObservation) { result.append((o.point3D, f.descriptor)) }
        }
        return result
    }
}
