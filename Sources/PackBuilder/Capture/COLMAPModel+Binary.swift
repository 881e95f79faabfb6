public import Foundation

extension COLMAPModel {
    /// Reads `cameras.bin`, `images.bin` and `points3D.bin` (little-endian, as COLMAP writes them).
    public static func readBinary(directory: URL) throws(BuildError) -> COLMAPModel {
        var cameras: [Int: Camera] = [:]
        var r = try BinaryReader(directory.appendingPathComponent("cameras.bin"))
        let cameraCount = try r.count("the number of cameras")
        for _ in 0..<cameraCount {
            let id = Int(try r.u32("CAMERA_ID"))
            let modelID = try r.i32("MODEL_ID")
            guard let model = CameraModel(id: modelID) else {
                throw .badData("cameras.bin: camera \(id) has model id \(modelID), which is not supported; supported: " +
                               CameraModel.allCases.map { "\($0.id) \($0.rawValue)" }.joined(separator: ", "))
            }
            let rawWidth = try r.u64("WIDTH"), rawHeight = try r.u64("HEIGHT")
            guard let width = Int(exactly: rawWidth), let height = Int(exactly: rawHeight) else {
                throw .badData("cameras.bin: camera \(id) has an image size \(rawWidth)x\(rawHeight) too large to represent")
            }
            var params: [Double] = []
            for _ in 0..<model.parameterCount { params.append(try r.f64("PARAMS")) }
            guard width > 0, height > 0, params[0] > 0 else { throw .badData("cameras.bin: camera \(id) has a non-positive size or focal length") }
            cameras[id] = Camera(id: id, model: model, width: width, height: height, params: params)
        }
        try r.end()

        var images: [Int: Image] = [:]
        r = try BinaryReader(directory.appendingPathComponent("images.bin"))
        let imageCount = try r.count("the number of images")
        for _ in 0..<imageCount {
            let id = Int(try r.u32("IMAGE_ID"))
            let q = SIMD4(try r.f64("QW"), try r.f64("QX"), try r.f64("QY"), try r.f64("QZ"))
            let t = SIMD3(try r.f64("TX"), try r.f64("TY"), try r.f64("TZ"))
            let camera = Int(try r.u32("CAMERA_ID"))
            let name = try r.cString("NAME")
            guard abs((q * q).sum().squareRoot() - 1) < 1e-3 else {
                throw .badData("images.bin: image \(id) has a quaternion of length \((q * q).sum().squareRoot()), not 1")
            }
            let n = try r.count("the number of observations of image \(id)", elementSize: 24)
            var observations: [Observation] = []
            observations.reserveCapacity(n)
            for _ in 0..<n {
                observations.append(Observation(x: try r.f64("X"), y: try r.f64("Y"), point3D: try r.i64("POINT3D_ID")))
            }
            images[id] = Image(id: id, qvec: q, tvec: t, cameraID: camera, name: name, observations: observations)
        }
        try r.end()

        var points: [Int64: Point3D] = [:]
        r = try BinaryReader(directory.appendingPathComponent("points3D.bin"))
        let pointCount = try r.count("the number of points")
        points.reserveCapacity(pointCount)
        for _ in 0..<pointCount {
            let id = Int64(bitPattern: try r.u64("POINT3D_ID"))
            let p = SIMD3(try r.f64("X"), try r.f64("Y"), try r.f64("Z"))
            let rgb = SIMD3(try r.u8("R"), try r.u8("G"), try r.u8("B"))
            let error = try r.f64("ERROR")
            let n = try r.count("the track length of point \(id)", elementSize: 8)
            var track: [TrackElement] = []
            track.reserveCapacity(n)
            for _ in 0..<n {
                track.append(TrackElement(imageID: Int(try r.u32("IMAGE_ID")), point2DIndex: Int(try r.u32("POINT2D_IDX"))))
            }
            points[id] = Point3D(id: id, position: p, color: rgb, error: error, track: track)
        }
        try r.end()
        let model = COLMAPModel(cameras: cameras, images: images, points: points)
        try model.validate("the COLMAP binary model in \(directory.lastPathComponent)")
        return model
    }

    /// Writes the model as COLMAP binary files.
    public func writeBinary(directory: URL) throws(BuildError) {
        try BuildError.makeDirectory(directory)
        var w = BinaryWriter()
        w.u64(UInt64(cameras.count))
        for c in cameras.values.sorted(by: { $0.id < $1.id }) {
            w.u32(UInt32(c.id))
            w.i32(c.model.id)
            w.u64(UInt64(c.width))
            w.u64(UInt64(c.height))
            c.params.forEach { w.f64($0) }
        }
        try BuildError.write(w.data, to: directory.appendingPathComponent("cameras.bin"), what: "COLMAP file")

        w = BinaryWriter()
        w.u64(UInt64(images.count))
        for image in images.values.sorted(by: { $0.id < $1.id }) {
            w.u32(UInt32(image.id))
            for i in 0..<4 { w.f64(image.qvec[i]) }
            for i in 0..<3 { w.f64(image.tvec[i]) }
            w.u32(UInt32(image.cameraID))
            w.data.append(contentsOf: Array(image.name.utf8) + [0])
            w.u64(UInt64(image.observations.count))
            for o in image.observations {
                w.f64(o.x)
                w.f64(o.y)
                w.u64(UInt64(bitPattern: o.point3D))
            }
        }
        try BuildError.write(w.data, to: directory.appendingPathComponent("images.bin"), what: "COLMAP file")

        w = BinaryWriter()
        w.u64(UInt64(points.count))
        for p in points.values.sorted(by: { $0.id < $1.id }) {
            w.u64(UInt64(bitPattern: p.id))
            for i in 0..<3 { w.f64(p.position[i]) }
            w.data.append(contentsOf: [p.color.x, p.color.y, p.color.z])
            w.f64(p.error)
            w.u64(UInt64(p.track.count))
            for e in p.track {
                w.u32(UInt32(e.imageID))
                w.u32(UInt32(e.point2DIndex))
            }
        }
        try BuildError.write(w.data, to: directory.appendingPathComponent("points3D.bin"), what: "COLMAP file")
    }
}

/// Little-endian reads from a whole file, with errors naming the file, the field and the offset.
struct BinaryReader {
    let name: String
    let bytes: [UInt8]
    var offset = 0

    init(_ url: URL) throws(BuildError) {
        name = url.lastPathComponent
        bytes = [UInt8](try BuildError.read(url, what: "COLMAP file"))
    }

    private mutating func take(_ n: Int, _ field: String) throws(BuildError) -> UInt64 {
        guard offset + n <= bytes.count else {
            throw .badData("\(name) ends early: \(field) at byte \(offset) needs \(n) bytes, the file has \(bytes.count)")
        }
        var v: UInt64 = 0
        for i in 0..<n { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        offset += n
        return v
    }

    mutating func u8(_ f: String) throws(BuildError) -> UInt8 { UInt8(try take(1, f)) }
    mutating func u32(_ f: String) throws(BuildError) -> UInt32 { UInt32(try take(4, f)) }
    mutating func i32(_ f: String) throws(BuildError) -> Int32 { Int32(bitPattern: UInt32(try take(4, f))) }
    mutating func u64(_ f: String) throws(BuildError) -> UInt64 { try take(8, f) }
    mutating func i64(_ f: String) throws(BuildError) -> Int64 { Int64(bitPattern: try take(8, f)) }

    mutating func f64(_ f: String) throws(BuildError) -> Double {
        let v = Double(bitPattern: try take(8, f))
        guard v.isFinite else { throw .badData("\(name): \(f) at byte \(offset - 8) is not a finite number") }
        return v
    }

    /// A count that must fit in what is left of the file (so a corrupt count fails clearly, not by allocating).
    mutating func count(_ what: String, elementSize: Int = 1) throws(BuildError) -> Int {
        let n = try take(8, what)
        guard n <= UInt64(bytes.count - offset) / UInt64(elementSize) else {
            throw .badData("\(name): \(what) is \(n) at byte \(offset - 8), more than the rest of the file can hold")
        }
        return Int(n)
    }

    mutating func cString(_ f: String) throws(BuildError) -> String {
        guard let end = bytes[offset...].firstIndex(of: 0) else { throw .badData("\(name): \(f) at byte \(offset) is not terminated") }
        let s = String(decoding: bytes[offset..<end], as: UTF8.self)
        offset = end + 1
        return s
    }

    func end() throws(BuildError) {
        guard offset == bytes.count else { throw .badData("\(name) has \(bytes.count - offset) unexpected bytes after its last record") }
    }
}

/// Little-endian writes.
struct BinaryWriter {
    var data = Data()

    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    mutating func i32(_ v: Int32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
}
