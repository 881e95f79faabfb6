public import Foundation

extension CameraIntrinsics {
    /// Intrinsics from the `--intrinsics` text `fx,fy,cx,cy[,k1,k2,p1,p2]`.
    ///
    /// - Throws: ``LocalizerError`` (`.invalidIntrinsics`) when the text does
    ///   not hold four or eight numbers.
    public init(parsing text: String) throws(LocalizerError) {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard fields.count == 4 || fields.count == 8 else {
            throw LocalizerError(.invalidIntrinsics, "intrinsics '\(text)': expected 4 numbers fx,fy,cx,cy or 8 with k1,k2,p1,p2, got \(fields.count)")
        }
        var values: [Double] = []
        let names = ["fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2"]
        for (i, field) in fields.enumerated() {
            guard let v = Double(field) else {
                throw LocalizerError(.invalidIntrinsics, "intrinsics '\(text)': \(names[i]) '\(field)' is not a number")
            }
            values.append(v)
        }
        self.init(fx: values[0], fy: values[1], cx: values[2], cy: values[3])
        if values.count == 8 {
            k1 = values[4]
            k2 = values[5]
            p1 = values[6]
            p2 = values[7]
        }
    }

    /// A sidecar `IMAGE.json`: `{fx, fy, cx, cy, width, height, optional k1, k2, p1, p2}`.
    public struct Sidecar: Sendable, Hashable {
        public var intrinsics: CameraIntrinsics
        /// The image size these intrinsics describe.
        public var width: Int
        public var height: Int

        public init(intrinsics: CameraIntrinsics, width: Int, height: Int) {
            self.intrinsics = intrinsics
            self.width = width
            self.height = height
        }

        /// Parses a sidecar's JSON bytes; `path` only names the file in errors.
        ///
        /// - Throws: ``LocalizerError`` (`.invalidSidecar`) naming the file and field.
        public init(json data: Data, path: String) throws(LocalizerError) {
            guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                throw LocalizerError(.invalidSidecar, "sidecar \(path): not a JSON object")
            }
            func number(_ key: String, required: Bool) throws(LocalizerError) -> Double? {
                guard let raw = object[key] else {
                    if required { throw LocalizerError(.invalidSidecar, "sidecar \(path): missing field '\(key)'") }
                    return nil
                }
                guard let n = raw as? NSNumber, !(raw is Bool), n.doubleValue.isFinite else {
                    throw LocalizerError(.invalidSidecar, "sidecar \(path): field '\(key)' is not a finite number")
                }
                return n.doubleValue
            }
            let fx = try number("fx", required: true)!
            let fy = try number("fy", required: true)!
            let cx = try number("cx", required: true)!
            let cy = try number("cy", required: true)!
            let w = try number("width", required: true)!
            let h = try number("height", required: true)!
            guard w >= 1, h >= 1, w == w.rounded(), h == h.rounded(), w <= 100_000, h <= 100_000 else {
                throw LocalizerError(.invalidSidecar, "sidecar \(path): width and height must be positive whole numbers, got \(w)x\(h)")
            }
            var k = CameraIntrinsics(fx: fx, fy: fy, cx: cx, cy: cy)
            k.k1 = try number("k1", required: false) ?? 0
            k.k2 = try number("k2", required: false) ?? 0
            k.p1 = try number("p1", required: false) ?? 0
            k.p2 = try number("p2", required: false) ?? 0
            self.init(intrinsics: k, width: Int(w), height: Int(h))
        }
    }
}
