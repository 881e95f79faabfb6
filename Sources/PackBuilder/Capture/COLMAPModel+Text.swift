public import Foundation

extension COLMAPModel {
    /// Reads `cameras.txt`, `images.txt` and `points3D.txt` from a directory.
    ///
    /// Errors name the file, the line and the field that is wrong.
    public static func readText(directory: URL) throws(BuildError) -> COLMAPModel {
        let cameras = try readCamerasText(directory.appendingPathComponent("cameras.txt"))
        let images = try readImagesText(directory.appendingPathComponent("images.txt"))
        let points = try readPointsText(directory.appendingPathComponent("points3D.txt"))
        let model = COLMAPModel(cameras: cameras, images: images, points: points)
        try model.validate("the COLMAP text model in \(directory.lastPathComponent)")
        return model
    }

    /// The lines of a text file, numbered from 1.
    private static func lines(_ url: URL) throws(BuildError) -> [(Int, Substring)] {
        let data = try BuildError.read(url, what: "COLMAP file")
        guard let text = String(data: data, encoding: .utf8) else { throw .badData("\(url.lastPathComponent) is not UTF-8 text") }
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { ($0.offset + 1, $0.element) }
    }

    private struct Fields {
        let file: String
        let line: Int
        let items: [Substring]

        func int(_ i: Int, _ name: String) throws(BuildError) -> Int {
            guard i < items.count, let v = Int(items[i]) else { throw bad(i, name, "an integer") }
            return v
        }

        func double(_ i: Int, _ name: String) throws(BuildError) -> Double {
            guard i < items.count, let v = Double(items[i]), v.isFinite else { throw bad(i, name, "a finite number") }
            return v
        }

        func bad(_ i: Int, _ name: String, _ what: String) -> BuildError {
            let got = i < items.count ? "'\(items[i])'" : "nothing"
            return .badData("\(file) line \(line): \(name) (field \(i + 1)) should be \(what), got \(got)")
        }
    }

    static func readCamerasText(_ url: URL) throws(BuildError) -> [Int: Camera] {
        let file = url.lastPathComponent
        var cameras: [Int: Camera] = [:]
        for (n, line) in try lines(url) {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty || t.hasPrefix("#") { continue }
            let f = Fields(file: file, line: n, items: t.split(whereSeparator: { $0 == " " || $0 == "\t" }))
            let id = try f.int(0, "CAMERA_ID")
            guard f.items.count > 1 else { throw f.bad(1, "MODEL", "a camera model name") }
            guard let model = CameraModel(rawValue: String(f.items[1])) else {
                throw .badData("\(file) line \(n): camera model \(f.items[1]) is not supported; use one of \(CameraModel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let width = try f.int(2, "WIDTH"), height = try f.int(3, "HEIGHT")
            guard width > 0, height > 0 else { throw .badData("\(file) line \(n): camera \(id) has a non-positive size \(width)x\(height)") }
            guard f.items.count == 4 + model.parameterCount else {
                throw .badData("\(file) line \(n): camera \(id) (\(model.rawValue)) needs \(model.parameterCount) parameters, got \(f.items.count - 4)")
            }
            var params: [Double] = []
            for i in 0..<model.parameterCount { params.append(try f.double(4 + i, "PARAMS[\(i)]")) }
            guard params[0] > 0 else { throw .badData("\(file) line \(n): camera \(id) has a non-positive focal length") }
            guard cameras[id] == nil else { throw .badData("\(file) line \(n): camera \(id) is listed twice") }
            cameras[id] = Camera(id: id, model: model, width: width, height: height, params: params)
        }
        return cameras
    }

    static func readImagesText(_ url: URL) throws(BuildError) -> [Int: Image] {
        let file = url.lastPathComponent
        var images: [Int: Image] = [:]
        // Two lines per image; the second (observations) may be empty, so only comments are skipped.
        let content = try lines(url).filter { !$0.1.hasPrefix("#") }
        var i = 0
        while i < content.count {
            let (n, line) = content[i]
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty { i += 1; continue }
            let f = Fields(file: file, line: n, items: t.split(whereSeparator: { $0 == " " || $0 == "\t" }))
            guard f.items.count >= 10 else {
                throw .badData("\(file) line \(n): an image line needs IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME; got \(f.items.count) fields")
            }
            let id = try f.int(0, "IMAGE_ID")
            let q = SIMD4(try f.double(1, "QW"), try f.double(2, "QX"), try f.double(3, "QY"), try f.double(4, "QZ"))
            let tv = SIMD3(try f.double(5, "TX"), try f.double(6, "TY"), try f.double(7, "TZ"))
            let camera = try f.int(8, "CAMERA_ID")
            // Names may contain spaces: everything after CAMERA_ID.
            let name = f.items[9...].joined(separator: " ")
            guard abs((q * q).sum().squareRoot() - 1) < 1e-3 else {
                throw .badData("\(file) line \(n): image \(id) has a quaternion of length \((q * q).sum().squareRoot()), not 1")
            }
            var observations: [Observation] = []
            if i + 1 < content.count {
                let (m, pointsLine) = content[i + 1]
                let items = pointsLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                guard items.count % 3 == 0 else {
                    throw .badData("\(file) line \(m): the observations of image \(id) should be triples X Y POINT3D_ID, got \(items.count) values")
                }
                let g = Fields(file: file, line: m, items: items)
                observations.reserveCapacity(items.count / 3)
                for k in stride(from: 0, to: items.count, by: 3) {
                    let x = try g.double(k, "X"), y = try g.double(k + 1, "Y")
                    guard let p = Int64(items[k + 2]) else { throw g.bad(k + 2, "POINT3D_ID", "an integer") }
                    observations.append(Observation(x: x, y: y, point3D: p))
                }
            }
            guard images[id] == nil else { throw .badData("\(file) line \(n): image \(id) is listed twice") }
            images[id] = Image(id: id, qvec: q, tvec: tv, cameraID: camera, name: name, observations: observations)
            i += 2
        }
        return images
    }

    static func readPointsText(_ url: URL) throws(BuildError) -> [Int64: Point3D] {
        let file = url.lastPathComponent
        var points: [Int64: Point3D] = [:]
        for (n, line) in try lines(url) {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty || t.hasPrefix("#") { continue }
            let f = Fields(file: file, line: n, items: t.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }))
            guard f.items.count >= 8, (f.items.count - 8) % 2 == 0 else {
                throw .badData("\(file) line \(n): a point needs POINT3D_ID, X, Y, Z, R, G, B, ERROR and (IMAGE_ID, POINT2D_IDX) pairs; got \(f.items.count) fields")
            }
            guard let id = Int64(f.items[0]) else { throw f.bad(0, "POINT3D_ID", "an integer") }
            let p = SIMD3(try f.double(1, "X"), try f.double(2, "Y"), try f.double(3, "Z"))
            var rgb = SIMD3<UInt8>(repeating: 0)
            for c in 0..<3 {
                guard let v = UInt8(f.items[4 + c]) else { throw f.bad(4 + c, ["R", "G", "B"][c], "an integer from 0 to 255") }
                rgb[c] = v
            }
            let error = try f.double(7, "ERROR")
            var track: [TrackElement] = []
            for k in stride(from: 8, to: f.items.count, by: 2) {
                track.append(TrackElement(imageID: try f.int(k, "IMAGE_ID"), point2DIndex: try f.int(k + 1, "POINT2D_IDX")))
            }
            guard points[id] == nil else { throw .badData("\(file) line \(n): point \(id) is listed twice") }
            points[id] = Point3D(id: id, position: p, color: rgb, error: error, track: track)
        }
        return points
    }

    /// Writes the model as COLMAP text files (numbers with full precision).
    public func writeText(directory: URL) throws(BuildError) {
        try BuildError.makeDirectory(directory)
        func num(_ v: Double) -> String { "\(v)" }
        var c = "# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n"
        for cam in cameras.values.sorted(by: { $0.id < $1.id }) {
            c += ([String(cam.id), cam.model.rawValue, String(cam.width), String(cam.height)] + cam.params.map(num)).joined(separator: " ") + "\n"
        }
        var im = "# Image list with two lines of data per image:\n#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n#   POINTS2D[] as (X, Y, POINT3D_ID)\n"
        for image in images.values.sorted(by: { $0.id < $1.id }) {
            let q = image.qvec, t = image.tvec
            im += ([String(image.id)] + [q[0], q[1], q[2], q[3], t.x, t.y, t.z].map(num) + [String(image.cameraID), image.name]).joined(separator: " ") + "\n"
            im += image.observations.map { "\(num($0.x)) \(num($0.y)) \($0.point3D)" }.joined(separator: " ") + "\n"
        }
        var pt = "# 3D point list with one line of data per point:\n#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)\n"
        for p in points.values.sorted(by: { $0.id < $1.id }) {
            var fields = [String(p.id), num(p.position.x), num(p.position.y), num(p.position.z),
                          String(p.color.x), String(p.color.y), String(p.color.z), num(p.error)]
            for e in p.track { fields += [String(e.imageID), String(e.point2DIndex)] }
            pt += fields.joined(separator: " ") + "\n"
        }
        try BuildError.write(Data(c.utf8), to: directory.appendingPathComponent("cameras.txt"), what: "COLMAP file")
        try BuildError.write(Data(im.utf8), to: directory.appendingPathComponent("images.txt"), what: "COLMAP file")
        try BuildError.write(Data(pt.utf8), to: directory.appendingPathComponent("points3D.txt"), what: "COLMAP file")
    }
}
