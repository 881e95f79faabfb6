import Foundation

/// How a texture is laid onto one side of a quad: texel = (world − origin) × scale.
struct Surface: Sendable {
    var texture: Int
    var uOrigin: Double
    var vOrigin: Double
    /// Texels per metre along u and v (negative flips the axis).
    var uScale: Double
    var vScale: Double
}

/// An axis-aligned rectangle: the plane `axis = position`, bounded in the other two axes.
///
/// The in-plane axes (u, v) are: normal x → (z, y); normal y → (x, z); normal z → (x, y).
/// Each side has its own surface so one quad can be both a ceiling and the floor above.
struct Quad: Sendable {
    var axis: Int
    var position: Double
    var uMin: Double, uMax: Double
    var vMin: Double, vMax: Double
    /// Seen from the positive side of the axis.
    var front: Surface
    /// Seen from the negative side.
    var back: Surface

    static func uvAxes(_ axis: Int) -> (Int, Int) {
        switch axis {
        case 0: (2, 1)
        case 1: (0, 2)
        default: (0, 1)
        }
    }

    var bounds: (SIMD3<Double>, SIMD3<Double>) {
        let (ua, va) = Quad.uvAxes(axis)
        var lo = SIMD3<Double>(repeating: 0), hi = SIMD3<Double>(repeating: 0)
        lo[axis] = position - 1e-6
        hi[axis] = position + 1e-6
        lo[ua] = uMin
        hi[ua] = uMax
        lo[va] = vMin
        hi[va] = vMax
        return (lo, hi)
    }
}

/// A point light (ceiling lamp).
struct Light: Sendable {
    var position: SIMD3<Double>
    var intensity: Double
}

/// The result of a ray cast.
struct Hit {
    var t: Double
    var quad: Int
    var point: SIMD3<Double>
    /// True when the ray came from the negative side of the quad's axis.
    var backSide: Bool
}

/// A static scene of textured axis-aligned quads with a bounding volume hierarchy.
struct Scene: Sendable {
    var quads: [Quad] = []
    var textures: [Texture] = []
    var lights: [Light] = []
    var ambient: Double = 0.35
    private var nodes: [BVHNode] = []
    private var order: [Int32] = []

    struct BVHNode: Sendable {
        var lox: Double, loy: Double, loz: Double
        var hix: Double, hiy: Double, hiz: Double
        /// Leaf: first index into `order`; inner: index of the left child (right is the next subtree).
        var start: Int32
        /// Leaf: number of quads; inner: 0, and `right` holds the right child.
        var count: Int32
        var right: Int32
        /// Inner nodes: the axis the children were split along.
        var axis: Int32 = 0
    }

    mutating func addTexture(_ t: Texture) -> Int {
        textures.append(t)
        return textures.count - 1
    }

    /// Builds the hierarchy; call after the last quad is added.
    mutating func finish() {
        for i in textures.indices { textures[i].freeze() }
        // Large quads (corridor floors, tall walls) overlap many boxes and make
        // the hierarchy slow; cut them into pieces of at most 2 m. Textures are
        // laid out in world coordinates, so the cuts are invisible.
        var pieces: [Quad] = []
        for q in quads {
            let nu = max(1, Int(((q.uMax - q.uMin) / 2).rounded(.up)))
            let nv = max(1, Int(((q.vMax - q.vMin) / 2).rounded(.up)))
            for i in 0..<nu {
                for j in 0..<nv {
                    var p = q
                    p.uMin = q.uMin + (q.uMax - q.uMin) * Double(i) / Double(nu)
                    p.uMax = i == nu - 1 ? q.uMax : q.uMin + (q.uMax - q.uMin) * Double(i + 1) / Double(nu)
                    p.vMin = q.vMin + (q.vMax - q.vMin) * Double(j) / Double(nv)
                    p.vMax = j == nv - 1 ? q.vMax : q.vMin + (q.vMax - q.vMin) * Double(j + 1) / Double(nv)
                    pieces.append(p)
                }
            }
        }
        quads = pieces
        order = (0..<Int32(quads.count)).map { $0 }
        nodes = []
        nodes.reserveCapacity(quads.count * 2)
        let boxes = quads.map(\.bounds)
        let centres = boxes.map { ($0.0 + $0.1) * 0.5 }
        _ = build(0, quads.count, boxes, centres)
    }

    private mutating func build(_ start: Int, _ end: Int, _ boxes: [(SIMD3<Double>, SIMD3<Double>)], _ centres: [SIMD3<Double>]) -> Int {
        var lo = SIMD3<Double>(repeating: .infinity), hi = SIMD3<Double>(repeating: -.infinity)
        var clo = lo, chi = hi
        for i in start..<end {
            let b = boxes[Int(order[i])]
            lo = pointwiseMin(lo, b.0)
            hi = pointwiseMax(hi, b.1)
            clo = pointwiseMin(clo, centres[Int(order[i])])
            chi = pointwiseMax(chi, centres[Int(order[i])])
        }
        let index = nodes.count
        nodes.append(BVHNode(lox: lo.x, loy: lo.y, loz: lo.z, hix: hi.x, hiy: hi.y, hiz: hi.z, start: Int32(start), count: Int32(end - start), right: 0))
        if end - start <= 4 { return index }
        let extent = chi - clo
        let axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2)
        let slice = order[start..<end].sorted { centres[Int($0)][axis] < centres[Int($1)][axis] }
        order.replaceSubrange(start..<end, with: slice)
        let mid = (start + end) / 2
        let left = build(start, mid, boxes, centres)
        let right = build(mid, end, boxes, centres)
        nodes[index].start = Int32(left)
        nodes[index].count = 0
        nodes[index].right = Int32(right)
        nodes[index].axis = Int32(axis)
        return index
    }

    /// The nearest hit along `origin + t·direction` for t in (tMin, tMax).
    ///
    /// Written with scalar arithmetic: SIMD generics are slow in unoptimised
    /// (debug and test) builds, and this loop runs for every ray.
    func cast(origin: SIMD3<Double>, direction: SIMD3<Double>, tMin: Double = 1e-4, tMax: Double = .infinity) -> Hit? {
        let o = (origin.x, origin.y, origin.z), d = (direction.x, direction.y, direction.z)
        guard let (t, qi) = cast(o, d, tMin: tMin, tMax: tMax) else { return nil }
        return Hit(t: t, quad: qi, point: origin + t * direction, backSide: direction[quads[qi].axis] > 0)
    }

    func cast(_ o: (Double, Double, Double), _ d: (Double, Double, Double), tMin: Double, tMax: Double) -> (Double, Int)? {
        let ix = 1 / d.0, iy = 1 / d.1, iz = 1 / d.2
        var best = tMax
        var bestQuad = -1
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 128) { stack in
            nodes.withUnsafeBufferPointer { nodes in
                quads.withUnsafeBufferPointer { quads in
                    order.withUnsafeBufferPointer { order in
                        guard !nodes.isEmpty else { return }
                        var top = 1
                        stack[0] = 0
                        while top > 0 {
                            top -= 1
                            let node = nodes[Int(stack[top])]
                            // Slab test against the node's box.
                            var ta = (node.lox - o.0) * ix, tb = (node.hix - o.0) * ix
                            var enter = Swift.max(Swift.min(ta, tb), tMin), exit = Swift.min(Swift.max(ta, tb), best)
                            ta = (node.loy - o.1) * iy
                            tb = (node.hiy - o.1) * iy
                            enter = Swift.max(enter, Swift.min(ta, tb))
                            exit = Swift.min(exit, Swift.max(ta, tb))
                            ta = (node.loz - o.2) * iz
                            tb = (node.hiz - o.2) * iz
                            enter = Swift.max(enter, Swift.min(ta, tb))
                            exit = Swift.min(exit, Swift.max(ta, tb))
                            if enter > exit { continue }
                            if node.count > 0 {
                                for k in Int(node.start)..<Int(node.start + node.count) {
                                    let qi = Int(order[k])
                                    let q = quads[qi]
                                    let t: Double, u: Double, v: Double
                                    switch q.axis {
                                    case 0:
                                        if d.0 == 0 { continue }
                                        t = (q.position - o.0) * ix
                                        if t <= tMin || t >= best { continue }
                                        u = o.2 + t * d.2
                                        v = o.1 + t * d.1
                                    case 1:
                                        if d.1 == 0 { continue }
                                        t = (q.position - o.1) * iy
                                        if t <= tMin || t >= best { continue }
                                        u = o.0 + t * d.0
                                        v = o.2 + t * d.2
                                    default:
                                        if d.2 == 0 { continue }
                                        t = (q.position - o.2) * iz
                                        if t <= tMin || t >= best { continue }
                                        u = o.0 + t * d.0
                                        v = o.1 + t * d.1
                                    }
                                    if u < q.uMin || u > q.uMax || v < q.vMin || v > q.vMax { continue }
                                    best = t
                                    bestQuad = qi
                                }
                            } else if top + 2 <= 128 {
                                // Visit the nearer child first so that `best` shrinks early.
                                let positive = node.axis == 0 ? d.0 > 0 : (node.axis == 1 ? d.1 > 0 : d.2 > 0)
                                stack[top] = positive ? node.right : node.start
                                stack[top + 1] = positive ? node.start : node.right
                                top += 2
                            }
                        }
                    }
                }
            }
        }
        return bestQuad >= 0 ? (best, bestQuad) : nil
    }

    /// The lit colour at a point of a quad, before exposure.
    func shade(quad qi: Int, point p: (Double, Double, Double), backSide: Bool, lightScale: Double) -> (Float, Float, Float) {
        let q = quads[qi]
        let s = backSide ? q.back : q.front
        let (u, v): (Double, Double)
        var n = (0.0, 0.0, 0.0)
        let sign = backSide ? -1.0 : 1.0
        switch q.axis {
        case 0: (u, v) = (p.2, p.1); n.0 = sign
        case 1: (u, v) = (p.0, p.2); n.1 = sign
        default: (u, v) = (p.0, p.1); n.2 = sign
        }
        let albedo = textures[s.texture].sampleScalar((u - s.uOrigin) * s.uScale, (v - s.vOrigin) * s.vScale)
        var light = ambient
        lights.withUnsafeBufferPointer { lights in
            for l in lights {
                let dx = l.position.x - p.0, dy = l.position.y - p.1, dz = l.position.z - p.2
                let d2 = dx * dx + dy * dy + dz * dz
                if d2 >= 100 { continue }
                let cosine = (n.0 * dx + n.1 * dy + n.2 * dz) / d2.squareRoot()
                // Smooth falloff that reaches zero at 10 m, so no ring shows where a lamp stops counting.
                let window = (1 - d2 / 100) * (1 - d2 / 100)
                if cosine > 0 { light += l.intensity * cosine * window / (1 + d2 * 0.25) }
            }
        }
        let f = Float(light * lightScale)
        return (albedo.0 * f, albedo.1 * f, albedo.2 * f)
    }

}
