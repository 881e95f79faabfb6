import Foundation

/// The kind of synthetic venue to generate.
public enum VenueKind: Sendable, Equatable {
    /// One furnished room, about 8 m × 6 m (one floor).
    case room
    /// Two floors of rooms along a corridor, joined by a stair hall.
    /// `roomsPerSide` rooms line each side of each floor's corridor.
    case building(roomsPerSide: Int)
}

/// A generated venue: the scene to render and the walking route through it.
struct Venue: Sendable {
    var scene: Scene
    /// Feet positions of the walking route, in order (y is the floor height).
    var route: [SIMD3<Double>]
    /// Floor heights (metres) of each storey, lowest first.
    var floors: [Double]

    static let storey = 3.0
    static let ceiling = 2.9

    /// Generates a venue. `detail` is the texels across a poster; it changes
    /// texture resolution only, never the layout (same seed, same geometry).
    static func make(_ kind: VenueKind, seed: UInt64, detail: Int = 256) -> Venue {
        switch kind {
        case .room: return makeRoom(seed: seed, detail: detail)
        case .building(let n): return makeBuilding(roomsPerSide: max(1, n), seed: seed, detail: detail)
        }
    }

    // MARK: One room

    private static func makeRoom(seed: UInt64, detail: Int) -> Venue {
        var b = SceneBuilder(seed: seed, detail: detail)
        var random = SeededRandom(seed: seed, stream: 11, index: 0)
        let x = 0.0...8.0, z = 0.0...6.0, y = 0.0...ceiling
        let wall = b.tile(b.textures.plainWall(), metres: 2)
        let floor = b.tile(b.textures.wood(), metres: 1.5)
        let ceil = b.tile(b.textures.ceiling(), metres: 2)
        b.room(x: x, y: y, z: z, walls: wall, floor: floor, ceiling: ceil, openings: [])
        decorate(&b, &random, x: x, z: z, base: 0, doors: [], density: 1.0)
        b.scene.lights = [Light(position: SIMD3(2.7, 2.8, 3), intensity: 0.8), Light(position: SIMD3(5.3, 2.8, 3), intensity: 0.8)]
        b.scene.finish()
        // An elliptical loop around the middle of the room, walked twice at different radii.
        var route: [SIMD3<Double>] = []
        for (k, r) in [(0, 1.0), (1, 0.6)] {
            for i in 0..<24 {
                let a = Double(i) / 24 * 2 * .pi + Double(k) * 0.3
                route.append(SIMD3(4 + 2.4 * r * cos(a), 0, 3 + 1.6 * r * sin(a)))
            }
        }
        route.append(route[0])
        return Venue(scene: b.scene, route: route, floors: [0])
    }

    // MARK: Two floors

    private static func makeBuilding(roomsPerSide n: Int, seed: UInt64, detail: Int) -> Venue {
        var b = SceneBuilder(seed: seed, detail: detail)
        var random = SeededRandom(seed: seed, stream: 11, index: 0)
        let roomWidth = 5.0, roomDepth = 5.0, corridorWidth = 2.4, hallLength = 7.0
        let lx = Double(n) * roomWidth
        let length = lx + hallLength
        let doorWidth = 1.2, doorHeight = 2.2

        let corridorFloor = b.tile(b.textures.tiles(), metres: 1.0)
        let corridorWall = b.tile(b.textures.plainWall(), metres: 2)
        let ceilingSurface = b.tile(b.textures.ceiling(), metres: 2)
        let jamb = b.tile(b.textures.plainWall(), metres: 1)
        let treads = b.tile(b.textures.wood(), metres: 1)
        let stringer = b.tile(b.textures.plainWall(), metres: 1)

        var openings: [Opening] = []
        var route: [SIMD3<Double>] = []
        var lights: [Light] = []

        // Stair hall doors: one on each floor, both on the corridor's south wall (z = 0).
        let stairStart = lx + 1.4, run = 0.28, steps = 16, rise = storey / Double(steps)
        let stairEnd = stairStart + Double(steps) * run
        let stairZ = -1.45 ... -b.inset
        let lowerDoor = Opening(axis: 2, position: 0, uMin: lx + 0.15, uMax: lx + 1.35, vMin: 0, vMax: doorHeight)
        let upperDoor = Opening(axis: 2, position: 0, uMin: stairEnd + 0.05, uMax: length - 0.1, vMin: storey, vMax: storey + doorHeight)
        openings += [lowerDoor, upperDoor]

        for level in 0..<2 {
            let base = Double(level) * storey
            // Rooms on both sides: south (z < 0) and north (z > corridor).
            var roomPlans: [(ClosedRange<Double>, ClosedRange<Double>, Opening)] = []
            for k in 0..<n {
                let x0 = Double(k) * roomWidth
                let doorX = x0 + roomWidth / 2 + random.uniform(-1, 1)
                let south = Opening(axis: 2, position: 0, uMin: doorX - doorWidth / 2, uMax: doorX + doorWidth / 2, vMin: base, vMax: base + doorHeight)
                let north = Opening(axis: 2, position: corridorWidth, uMin: doorX - doorWidth / 2, uMax: doorX + doorWidth / 2, vMin: base, vMax: base + doorHeight)
                roomPlans.append(((x0 + b.inset)...(x0 + roomWidth - b.inset), (-roomDepth + b.inset)...(-b.inset), south))
                roomPlans.append(((x0 + b.inset)...(x0 + roomWidth - b.inset), (corridorWidth + b.inset)...(corridorWidth + roomDepth - b.inset), north))
            }
            openings += roomPlans.map(\.2)
            for (x, z, door) in roomPlans {
                let style = random.int(5)
                let wallTexture: Texture
                switch style {
                case 0: wallTexture = b.textures.wallpaper()
                default: wallTexture = b.textures.plainWall()
                }
                let wall = b.tile(wallTexture, metres: style == 0 ? 0.35 : 2)
                let floorTexture = random.chance(0.5) ? b.textures.wood() : b.textures.carpet()
                let floor = b.tile(floorTexture, metres: 1.5)
                b.room(x: x, y: base...(base + ceiling), z: z, walls: wall, floor: floor, ceiling: ceilingSurface, openings: [door])
                b.jambs(door, jamb)
                // Low-texture rooms (style 4) get only a little decoration: a hard case.
                decorate(&b, &random, x: x, z: z, base: base, doors: [door], density: style == 4 ? 0.25 : 1.0)
                lights.append(Light(position: SIMD3((x.lowerBound + x.upperBound) / 2, base + 2.8, (z.lowerBound + z.upperBound) / 2), intensity: 0.8))
            }
            // The corridor, with signs by the doors and posters between them.
            let cx = b.inset...(length - b.inset), cz = b.inset...(corridorWidth - b.inset)
            b.room(x: cx, y: base...(base + ceiling), z: cz, walls: corridorWall, floor: corridorFloor, ceiling: ceilingSurface, openings: openings)
            for door in roomPlans.map(\.2) {
                let sign = b.scene.addTexture(b.textures.sign(characters: 3 + random.int(4)))
                let inward = door.position == 0 ? 1.0 : -1.0
                let wallZ = door.position + inward * b.inset
                b.hang(sign, axis: 2, wall: wallZ, inward: inward, u: (door.uMin + door.uMax) / 2, v: base + 2.5, width: 0.7, height: 0.25)
            }
            for k in 0..<Int(length / 1.6) where random.chance(0.85) {
                let u = Double(k) * 1.6 + 0.8 + random.uniform(-0.2, 0.2)
                let south = random.chance(0.5)
                let wallPos = south ? b.inset : corridorWidth - b.inset
                let doors = openings.filter { $0.position == (south ? 0 : corridorWidth) && $0.vMin >= base - 0.01 && $0.vMin < base + storey - 0.01 }
                let widthP = random.uniform(0.5, 0.9)
                if doors.contains(where: { $0.uMin - 0.1 < u + widthP / 2 && u - widthP / 2 < $0.uMax + 0.1 }) { continue }
                if u + widthP / 2 > length - 0.2 { continue }
                let poster = b.scene.addTexture(b.textures.poster(aspect: random.uniform(0.6, 1.4)))
                b.hang(poster, axis: 2, wall: wallPos, inward: south ? 1 : -1, u: u, v: base + 1.5, width: widthP, height: widthP * 1.2)
            }
            for k in 0..<Int(length / 5) + 1 {
                lights.append(Light(position: SIMD3(2.5 + Double(k) * 5, base + 2.8, corridorWidth / 2), intensity: 0.5))
            }
        }
        // Slab between floors in the corridor and rooms is the ceiling/floor pair already placed.

        // The stair hall: two storeys high, straight stairs along +x against its north wall.
        let hx = (lx + b.inset)...(length - b.inset), hz = (-roomDepth + b.inset)...(-b.inset)
        let hallWall = b.tile(b.textures.plainWall(), metres: 2)
        let hallFloor = b.tile(b.textures.tiles(), metres: 0.8)
        b.room(x: hx, y: 0...(storey + ceiling), z: hz, walls: hallWall, floor: hallFloor, ceiling: ceilingSurface, openings: [lowerDoor, upperDoor])
        b.jambs(lowerDoor, jamb)
        b.jambs(upperDoor, jamb)
        for i in 0..<steps {
            let x0 = stairStart + Double(i) * run
            b.block(x: x0...(x0 + run), y: 0...(Double(i + 1) * rise), z: stairZ, sides: stringer, top: treads, skipSides: [1, 3])
        }
        b.block(x: stairEnd...hx.upperBound, y: 0...storey, z: stairZ, sides: stringer, top: treads, skipSides: [0, 1, 3])
        for k in 0..<4 {
            let poster = b.scene.addTexture(b.textures.poster(aspect: random.uniform(0.7, 1.3)))
            let u = lx + 1.2 + Double(k) * 1.5
            b.hang(poster, axis: 2, wall: hz.lowerBound, inward: 1, u: u, v: k % 2 == 0 ? 1.6 : 4.4, width: 1.0, height: 1.2)
        }
        for k in 0..<2 {
            let poster = b.scene.addTexture(b.textures.poster(aspect: 1))
            b.hang(poster, axis: 0, wall: hx.lowerBound, inward: 1, u: -3.2, v: 1.5 + Double(k) * 3, width: 1.2, height: 1.2)
            let poster2 = b.scene.addTexture(b.textures.poster(aspect: 1))
            b.hang(poster2, axis: 0, wall: hx.upperBound, inward: -1, u: -3.2, v: 1.5 + Double(k) * 3, width: 1.2, height: 1.2)
        }
        lights.append(Light(position: SIMD3(lx + 3.5, 5.8, -2.5), intensity: 1.2))
        lights.append(Light(position: SIMD3(lx + 3.5, 2.8, -3.5), intensity: 0.6))
        b.scene.lights = lights
        b.scene.finish()

        // The walking route: visit every room of the ground floor, climb, visit the upper floor.
        let corridorZ = corridorWidth / 2
        func visit(_ door: Opening, base: Double, into route: inout [SIMD3<Double>]) {
            let x = (door.uMin + door.uMax) / 2
            let south = door.position == 0
            let side = south ? -1.0 : 1.0
            let centreZ = south ? -roomDepth / 2 : corridorWidth + roomDepth / 2
            let centreX = (Double(Int(x / roomWidth)) + 0.5) * roomWidth
            route.append(SIMD3(x, base, corridorZ))
            route.append(SIMD3(x, base, door.position + side * 0.6))
            // A loop around the room's middle, entered on the door side.
            for i in 0...8 {
                let a = Double(i) / 8 * 2 * .pi
                route.append(SIMD3(centreX + 1.2 * sin(a), base, centreZ - side * 1.1 * cos(a)))
            }
            route.append(SIMD3(x, base, door.position + side * 0.6))
            route.append(SIMD3(x, base, corridorZ))
        }
        let doorsBy = { (base: Double) in
            openings.filter { abs($0.vMin - base) < 0.01 && $0.uMax <= lx + 0.01 }.sorted { ($0.uMin, $0.position) < ($1.uMin, $1.position) }
        }
        route.append(SIMD3(0.8, 0, corridorZ))
        for door in doorsBy(0) { visit(door, base: 0, into: &route) }
        let lowerX = (lowerDoor.uMin + lowerDoor.uMax) / 2
        let upperX = (upperDoor.uMin + upperDoor.uMax) / 2
        let stairMidZ = (stairZ.lowerBound + stairZ.upperBound) / 2
        route += [SIMD3(lowerX, 0, corridorZ), SIMD3(lowerX, 0, 0.4), SIMD3(lowerX, 0, stairMidZ),
                  SIMD3(stairStart - 0.05, 0, stairMidZ), SIMD3(stairEnd, storey, stairMidZ),
                  SIMD3(upperX, storey, stairMidZ), SIMD3(upperX, storey, 0.4), SIMD3(upperX, storey, corridorZ)]
        for door in doorsBy(storey).reversed() { visit(door, base: storey, into: &route) }
        route.append(SIMD3(0.8, storey, corridorZ))
        return Venue(scene: b.scene, route: route, floors: [0, storey])
    }

    /// Posters, a sign and a cabinet or two on a room's walls, avoiding its doors.
    private static func decorate(_ b: inout SceneBuilder, _ random: inout SeededRandom, x: ClosedRange<Double>, z: ClosedRange<Double>,
                                 base: Double, doors: [Opening], density: Double) {
        // Walls: (axis, position, inward sign, u range).
        let walls: [(Int, Double, Double, ClosedRange<Double>)] = [
            (2, z.lowerBound, 1, x), (2, z.upperBound, -1, x), (0, x.lowerBound, 1, z), (0, x.upperBound, -1, z),
        ]
        for (axis, position, inward, span) in walls {
            let count = Int((Double(2 + random.int(3)) * density).rounded())
            var used: [ClosedRange<Double>] = doors.filter { $0.axis == axis && abs($0.position - position) < 0.1 }.map { ($0.uMin - 0.2)...($0.uMax + 0.2) }
            var placed = 0
            for _ in 0..<(count * 3) where placed < count {
                let w = random.uniform(0.5, 1.3), h = w * random.uniform(0.7, 1.4)
                let u = random.uniform(span.lowerBound + w / 2 + 0.2, span.upperBound - w / 2 - 0.2)
                let r = (u - w / 2 - 0.1)...(u + w / 2 + 0.1)
                if used.contains(where: { $0.overlaps(r) }) { continue }
                used.append(r)
                placed += 1
                let texture = b.scene.addTexture(b.textures.poster(aspect: w / h))
                b.hang(texture, axis: axis, wall: position, inward: inward, u: u, v: base + random.uniform(1.3, 1.8), width: w, height: h)
            }
            // A cabinet against some walls, where no poster or door is.
            if density >= 1, random.chance(0.5) {
                let w = random.uniform(0.8, 1.4), depth = 0.45, height = random.uniform(0.7, 1.1)
                let u = random.uniform(span.lowerBound + w / 2 + 0.1, span.upperBound - w / 2 - 0.1)
                let r = (u - w / 2)...(u + w / 2)
                if used.contains(where: { $0.overlaps(r) && $0.lowerBound < r.upperBound }) && !doors.isEmpty { continue }
                if doors.contains(where: { $0.axis == axis && abs($0.position - position) < 0.1 && ($0.uMin - 0.3)...($0.uMax + 0.3) ~= u }) { continue }
                let texture = b.scene.addTexture(b.textures.cabinet())
                let top = b.tile(b.textures.wood(), metres: 1)
                let y = base...(base + height)
                let inner = position + inward * depth
                let d = min(position, inner)...max(position, inner)
                if axis == 2 {
                    b.block(x: r, y: y, z: d, sides: b.stretched(texture, u: r, v: y), top: top)
                } else {
                    b.block(x: d, y: y, z: r, sides: b.stretched(texture, u: r, v: y), top: top)
                }
            }
        }
    }
}
