import Foundation

/// Merges observations of the same 3D point seen from many frames into one map point.
///
/// Every observation is a 3D position (from depth, triangulation or a model)
/// with a binary descriptor. A new observation joins an existing point when
/// that point lies within `radius(depth)` of it and one of the point's stored
/// descriptors is within `maxHamming` bits; otherwise it starts a new point.
/// Candidates are found through a hash grid of voxels, so the cost per
/// observation stays constant however large the venue grows.
struct PointMerger {
    struct Point {
        var sum: SIMD3<Double>
        var sumSquares: Double
        var count: Int
        /// Up to `maxStoredDescriptors` observed descriptors, kept to choose representatives.
        var descriptors: [SIMD4<UInt64>]
        var colour: SIMD3<Double>
        var frames: Int
        var lastFrame: Int
        var floor: Int

        var mean: SIMD3<Double> { sum / Double(count) }
        /// RMS distance of the observations from their mean.
        var spread: Double {
            let m = mean
            return max(0, sumSquares / Double(count) - dot(m, m)).squareRoot()
        }
    }

    private(set) var points: [Point] = []
    private var grid: [SIMD3<Int32>: [Int32]] = [:]
    let voxel: Double
    let maxHamming: Int
    static let maxStoredDescriptors = 8

    init(voxel: Double = 0.05, maxHamming: Int = 64) {
        self.voxel = voxel
        self.maxHamming = maxHamming
    }

    private func cell(_ p: SIMD3<Double>) -> SIMD3<Int32> {
        SIMD3(Int32((p.x / voxel).rounded(.down)), Int32((p.y / voxel).rounded(.down)), Int32((p.z / voxel).rounded(.down)))
    }

    /// Adds one observation and returns the index of the point it joined or created.
    /// - Parameters:
    ///   - radius: how far (metres) a point may lie and still be the same one; grows with viewing distance.
    ///   - frame: the frame index, so that a point counts each frame once.
    @discardableResult
    mutating func add(_ position: SIMD3<Double>, descriptor: SIMD4<UInt64>, radius: Double, frame: Int, colour: SIMD3<Double>, floor: Int) -> Int {
        let c = cell(position)
        let reach = Int32(max(1, (radius / voxel).rounded(.up)))
        var best = -1
        var bestScore = Int.max
        for dx in -reach...reach {
            for dy in -reach...reach {
                for dz in -reach...reach {
                    guard let list = grid[c &+ SIMD3(dx, dy, dz)] else { continue }
                    for i32 in list {
                        let i = Int(i32)
                        let p = points[i]
                        let d = p.mean - position
                        guard dot(d, d) <= radius * radius else { continue }
                        // A point seen in this frame already is another corner, not this one.
                        if p.lastFrame == frame { continue }
                        var h = Int.max
                        for other in p.descriptors { h = min(h, hamming(other, descriptor)) }
                        if h <= maxHamming && h < bestScore {
                            bestScore = h
                            best = i
                        }
                    }
                }
            }
        }
        if best >= 0 {
            var p = points[best]
            let oldCell = cell(p.mean)
            p.sum += position
            p.sumSquares += dot(position, position)
            p.count += 1
            if p.descriptors.count < Self.maxStoredDescriptors { p.descriptors.append(descriptor) }
            p.colour += colour
            if p.lastFrame != frame {
                p.frames += 1
                p.lastFrame = frame
            }
            points[best] = p
            let newCell = cell(p.mean)
            if newCell != oldCell {
                grid[oldCell]?.removeAll { $0 == Int32(best) }
                grid[newCell, default: []].append(Int32(best))
            }
            return best
        }
        points.append(Point(sum: position, sumSquares: dot(position, position), count: 1, descriptors: [descriptor],
                            colour: colour, frames: 1, lastFrame: frame, floor: floor))
        grid[c, default: []].append(Int32(points.count - 1))
        return points.count - 1
    }

    /// The points worth keeping: seen in at least `minFrames` frames, with
    /// observations that agree within `maxSpread` metres (unstable points go).
    func stablePoints(minFrames: Int, maxSpread: Double) -> [Point] {
        points.filter { $0.frames >= minFrames && $0.spread <= maxSpread }
    }
}

@inline(__always)
func hamming(_ a: SIMD4<UInt64>, _ b: SIMD4<UInt64>) -> Int {
    let x = a ^ b
    return x[0].nonzeroBitCount + x[1].nonzeroBitCount + x[2].nonzeroBitCount + x[3].nonzeroBitCount
}

/// Picks a point's representative descriptors: the medoid (the observed
/// descriptor closest to all others) and, when views differ enough, the one
/// farthest from it, so that both ends of the viewpoint range match.
func representativeDescriptors(_ observed: [SIMD4<UInt64>], limit: Int = 2, spreadThreshold: Int = 40) -> [SIMD4<UInt64>] {
    guard observed.count > 2 else { return Array(observed.prefix(1)) }
    var bestIndex = 0, bestSum = Int.max
    for (i, a) in observed.enumerated() {
        var sum = 0
        for b in observed { sum += hamming(a, b) }
        if sum < bestSum {
            bestSum = sum
            bestIndex = i
        }
    }
    let medoid = observed[bestIndex]
    var result = [medoid]
    if limit > 1 {
        var farIndex = -1, farDistance = spreadThreshold
        for (i, d) in observed.enumerated() where hamming(d, medoid) > farDistance {
            farDistance = hamming(d, medoid)
            farIndex = i
        }
        if farIndex >= 0 { result.append(observed[farIndex]) }
    }
    return result
}
