import Dispatch
import Foundation

/// Per-frame rendering conditions: exposure, lighting, noise and motion blur.
public struct RenderConditions: Sendable, Equatable {
    /// Multiplies the final radiance (camera exposure and gain).
    public var exposure: Double = 1
    /// Scales every light (lamps dimmer or brighter than usual).
    public var lightScale: Double = 1
    /// Standard deviation of the Gaussian sensor noise, in 8-bit grey levels.
    public var noiseSigma: Double = 2
    /// Camera motion during the exposure (world metres), for motion blur; zero for none.
    public var blurTranslation: SIMD3<Double> = .zero
    /// Camera yaw during the exposure (degrees), for motion blur.
    public var blurYawDegrees: Double = 0

    public init(exposure: Double = 1, lightScale: Double = 1, noiseSigma: Double = 2,
                blurTranslation: SIMD3<Double> = .zero, blurYawDegrees: Double = 0) {
        self.exposure = exposure
        self.lightScale = lightScale
        self.noiseSigma = noiseSigma
        self.blurTranslation = blurTranslation
        self.blurYawDegrees = blurYawDegrees
    }
}

/// A rendered frame: 8-bit RGB pixels (row-major, top row first) and the
/// z-depth at every pixel centre in metres (0 where the ray hit nothing).
public struct RenderedFrame: Sendable {
    public let width: Int
    public let height: Int
    public var rgb: [UInt8]
    public var depth: [Float]

    /// Luma (BT.601) as 8-bit grey.
    public var gray: [UInt8] {
        (0..<(width * height)).map { i in
            let r = Int(rgb[3 * i]), g = Int(rgb[3 * i + 1]), b = Int(rgb[3 * i + 2])
            return UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
        }
    }

    /// Depth in millimetres, rounded and clamped to 16 bits (0 = unknown).
    public var depthMillimetres: [UInt16] {
        depth.map { d in d > 0 ? UInt16(min(65535, max(1, (Double(d) * 1000).rounded()))) : 0 }
    }
}

/// Renders a ``Scene`` by ray casting, one row per work item across all cores.
struct Renderer: Sendable {
    let scene: Scene
    /// Sub-samples per pixel along each axis (2 → 4 rays per pixel).
    /// Distortion is not rendered: synthetic frames are ideal pinhole images.
    var supersampling = 2

    /// Renders one frame.
    ///
    /// Colour: `supersampling²` stratified rays per pixel, each at its own
    /// instant of the exposure when blur is set, averaged. Depth: one ray
    /// through the pixel centre at the middle of the exposure.
    /// - Parameter noiseSeed: seeds the sensor noise; the same seed gives the same bytes.
    func render(pose: CapturePose, intrinsics k: CaptureCamera, conditions c: RenderConditions, noiseSeed: UInt64) -> RenderedFrame {
        let w = k.width, h = k.height
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        var depth = [Float](repeating: 0, count: w * h)
        let n = max(1, supersampling)
        let samples = n * n
        // Per-sample camera: rotation and position at that sample's instant.
        let poses: [CapturePose] = (0..<samples).map { i in
            let t = samples == 1 ? 0 : Double(i) / Double(samples - 1) - 0.5
            let yaw = Mat3.rotation(axis: SIMD3(0, 1, 0), angle: -c.blurYawDegrees * t * .pi / 180)
            return CapturePose(rotation: yaw * pose.rotation, position: pose.position + c.blurTranslation * t)
        }
        // Sub-pixel offsets: stratified, and shuffled across the exposure instants.
        let offsets: [SIMD2<Double>] = (0..<samples).map { i in
            let j = (i * 5 + 3) % samples
            return SIMD2((Double(j % n) + 0.5) / Double(n), (Double(j / n) + 0.5) / Double(n))
        }
        let scale = Float(c.exposure) / Float(samples)
        // Camera bases as plain tuples: the loop below avoids SIMD generics (slow in debug builds).
        typealias V = (Double, Double, Double)
        func basis(_ r: Mat3) -> (V, V, V) {
            ((r.c0.x, r.c0.y, r.c0.z), (r.c1.x, r.c1.y, r.c1.z), (r.c2.x, r.c2.y, r.c2.z))
        }
        let bases = poses.map { basis($0.rotation) }
        let origins: [V] = poses.map { ($0.position.x, $0.position.y, $0.position.z) }
        let centreBasis = basis(pose.rotation)
        let centreOrigin: V = (pose.position.x, pose.position.y, pose.position.z)
        let lightScale = c.lightScale, sigma = c.noiseSigma
        let scene = self.scene
        // The unit-depth ray through an image point, in world axes (k.ray without distortion).
        @Sendable @inline(__always) func direction(_ b: (V, V, V), _ px: Double, _ py: Double) -> V {
            let x = (px - k.cx) / k.fx, y = -(py - k.cy) / k.fy
            return (b.0.0 * x + b.1.0 * y - b.2.0, b.0.1 * x + b.1.1 * y - b.2.1, b.0.2 * x + b.1.2 * y - b.2.2)
        }
        rgb.withUnsafeMutableBufferPointer { rgbOut in
            depth.withUnsafeMutableBufferPointer { depthOut in
                nonisolated(unsafe) let rgbOut = rgbOut
                nonisolated(unsafe) let depthOut = depthOut
                DispatchQueue.concurrentPerform(iterations: h) { y in
                    var noise = SeededRandom(seed: noiseSeed, stream: 1, index: UInt64(y))
                    for x in 0..<w {
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        for s in 0..<samples {
                            let o = origins[s]
                            let d = direction(bases[s], Double(x) + offsets[s].x, Double(y) + offsets[s].y)
                            if let (t, qi) = scene.cast(o, d, tMin: 1e-4, tMax: .infinity) {
                                let p = (o.0 + t * d.0, o.1 + t * d.1, o.2 + t * d.2)
                                let axisD = scene.quads[qi].axis == 0 ? d.0 : (scene.quads[qi].axis == 1 ? d.1 : d.2)
                                let lit = scene.shade(quad: qi, point: p, backSide: axisD > 0, lightScale: lightScale)
                                r += lit.0
                                g += lit.1
                                b += lit.2
                            }
                        }
                        let d = direction(centreBasis, Double(x) + 0.5, Double(y) + 0.5)
                        if let (t, _) = scene.cast(centreOrigin, d, tMin: 1e-4, tMax: .infinity) {
                            // The ray has unit camera depth, so t is the z-depth.
                            depthOut[y * w + x] = Float(t)
                        }
                        let grain = Float(noise.gaussian() * sigma)
                        let i = (y * w + x) * 3
                        rgbOut[i] = UInt8(Swift.min(255, Swift.max(0, (r * scale * 255 + grain).rounded())))
                        rgbOut[i + 1] = UInt8(Swift.min(255, Swift.max(0, (g * scale * 255 + grain).rounded())))
                        rgbOut[i + 2] = UInt8(Swift.min(255, Swift.max(0, (b * scale * 255 + grain).rounded())))
                    }
                }
            }
        }
        return RenderedFrame(width: w, height: h, rgb: rgb, depth: depth)
    }
}
