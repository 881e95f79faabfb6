import Foundation

/// A door or other rectangular hole in a wall, in world coordinates.
struct Opening: Sendable {
    /// The wall's normal axis (0 = x, 2 = z) and its grid position.
    var axis: Int
    var position: Double
    var uMin: Double, uMax: Double
    var vMin: Double, vMax: Double
}

/// Helpers that turn boxes, walls with openings, posters and stairs into quads.
struct SceneBuilder {
    var scene = Scene()
    var textures: TextureFactory
    /// Half the wall thickness: room interiors are inset this much from grid lines.
    let inset = 0.05

    init(seed: UInt64, detail: Int) { textures = TextureFactory(seed: seed, detail: detail) }

    /// A surface for a repeating texture of `metres` per repeat.
    func tiled(_ texture: Int, metres: Double) -> Surface {
        let t = scene.textures[texture]
        return Surface(texture: texture, uOrigin: 0, vOrigin: 0, uScale: Double(t.width) / metres, vScale: -Double(t.height) / metres)
    }

    /// Adds a texture and returns a surface repeating it every `metres`.
    mutating func tile(_ texture: Texture, metres: Double) -> Surface {
        let index = scene.addTexture(texture)
        return tiled(index, metres: metres)
    }

    /// A surface that stretches a texture once over a rectangle (posters, signs, cabinets).
    func stretched(_ texture: Int, u: ClosedRange<Double>, v: ClosedRange<Double>) -> Surface {
        let t = scene.textures[texture]
        return Surface(texture: texture, uOrigin: u.lowerBound, vOrigin: v.upperBound,
                       uScale: Double(t.width) / (u.upperBound - u.lowerBound),
                       vScale: -Double(t.height) / (v.upperBound - v.lowerBound))
    }

    mutating func quad(axis: Int, at position: Double, u: ClosedRange<Double>, v: ClosedRange<Double>, _ surface: Surface, back: Surface? = nil) {
        guard u.upperBound - u.lowerBound > 1e-6, v.upperBound - v.lowerBound > 1e-6 else { return }
        scene.quads.append(Quad(axis: axis, position: position, uMin: u.lowerBound, uMax: u.upperBound,
                                vMin: v.lowerBound, vMax: v.upperBound, front: surface, back: back ?? surface))
    }

    /// A wall rectangle minus the openings that lie on it, split into quads.
    mutating func wall(axis: Int, at position: Double, u: ClosedRange<Double>, v: ClosedRange<Double>, openings: [Opening], _ surface: Surface) {
        let holes = openings.filter { $0.axis == axis && abs($0.position - position) <= inset + 1e-6 }
        var cuts = [u.lowerBound, u.upperBound]
        for h in holes { cuts += [h.uMin, h.uMax] }
        cuts = Array(Set(cuts.map { min(max($0, u.lowerBound), u.upperBound) })).sorted()
        for (a, b) in zip(cuts, cuts.dropFirst()) where b - a > 1e-6 {
            let mid = (a + b) / 2
            var cutsV = [v.lowerBound, v.upperBound]
            let covering = holes.filter { $0.uMin < mid && mid < $0.uMax }
            for h in covering { cutsV += [h.vMin, h.vMax] }
            cutsV = Array(Set(cutsV.map { min(max($0, v.lowerBound), v.upperBound) })).sorted()
            for (c, d) in zip(cutsV, cutsV.dropFirst()) where d - c > 1e-6 {
                let vm = (c + d) / 2
                if covering.contains(where: { $0.vMin < vm && vm < $0.vMax }) { continue }
                quad(axis: axis, at: position, u: a...b, v: c...d, surface)
            }
        }
    }

    /// A box seen from inside: floor, ceiling and four walls with their openings.
    mutating func room(x: ClosedRange<Double>, y: ClosedRange<Double>, z: ClosedRange<Double>,
                       walls: Surface, floor: Surface, ceiling: Surface?, openings: [Opening]) {
        quad(axis: 1, at: y.lowerBound, u: x, v: z, floor)
        if let ceiling { quad(axis: 1, at: y.upperBound, u: x, v: z, ceiling) }
        wall(axis: 0, at: x.lowerBound, u: z, v: y, openings: openings, walls)
        wall(axis: 0, at: x.upperBound, u: z, v: y, openings: openings, walls)
        wall(axis: 2, at: z.lowerBound, u: x, v: y, openings: openings, walls)
        wall(axis: 2, at: z.upperBound, u: x, v: y, openings: openings, walls)
    }

    /// The reveals of a door through a wall of thickness 2 × inset: two sides, head and sill.
    mutating func jambs(_ o: Opening, _ surface: Surface) {
        let w = (o.position - inset)...(o.position + inset)
        // Side reveals lie in planes perpendicular to the wall.
        for u in [o.uMin, o.uMax] {
            if o.axis == 2 {
                quad(axis: 0, at: u, u: w, v: o.vMin...o.vMax, surface)
            } else {
                quad(axis: 2, at: u, u: w, v: o.vMin...o.vMax, surface)
            }
        }
        for v in [o.vMin, o.vMax] {
            if o.axis == 2 {
                quad(axis: 1, at: v, u: o.uMin...o.uMax, v: w, surface)
            } else {
                quad(axis: 1, at: v, u: w, v: o.uMin...o.uMax, surface)
            }
        }
    }

    /// An outward-facing box (cabinet, table block, stair step).
    mutating func block(x: ClosedRange<Double>, y: ClosedRange<Double>, z: ClosedRange<Double>, sides: Surface, top: Surface, skipSides: Set<Int> = []) {
        quad(axis: 1, at: y.upperBound, u: x, v: z, top)
        if !skipSides.contains(0) { quad(axis: 0, at: x.lowerBound, u: z, v: y, sides) }
        if !skipSides.contains(1) { quad(axis: 0, at: x.upperBound, u: z, v: y, sides) }
        if !skipSides.contains(2) { quad(axis: 2, at: z.lowerBound, u: x, v: y, sides) }
        if !skipSides.contains(3) { quad(axis: 2, at: z.upperBound, u: x, v: y, sides) }
    }

    /// A poster or sign on a wall, 5 mm in front of it, centred at (u, v).
    mutating func hang(_ texture: Int, axis: Int, wall: Double, inward: Double, u: Double, v: Double, width: Double, height: Double) {
        let ur = (u - width / 2)...(u + width / 2), vr = (v - height / 2)...(v + height / 2)
        quad(axis: axis, at: wall + 0.005 * inward, u: ur, v: vr, stretched(texture, u: ur, v: vr))
    }
}
