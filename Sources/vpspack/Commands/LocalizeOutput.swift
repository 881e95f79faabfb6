import Foundation
import Localizer

/// Formats localization results for `vpspack localize`: one JSON object per
/// image (DESIGN.md "Localize") or a short text block per image.
enum LocalizeOutput {
    /// Rounds to `digits` decimals so JSON carries no noise digits.
    static func rounded(_ value: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }

    static func json(image: String, result: LocalizationResult) -> [String: Any] {
        var object: [String: Any] = [
            "image": image,
            "localized": result.localized,
            "confidence": rounded(result.confidence, 3),
            "inliers": result.inliers,
            "matches": result.matches,
            "timings": [
                "decode": rounded(result.timings.decode, 2),
                "features": rounded(result.timings.features, 2),
                "match": rounded(result.timings.match, 2),
                "pose": rounded(result.timings.pose, 2),
                "total": rounded(result.timings.total, 2),
            ],
        ]
        if let e = result.reprojectionError { object["reprojectionError"] = rounded(e, 3) }
        if let reason = result.reason { object["reason"] = reason }
        if let pose = result.pose {
            object["position"] = pose.position.array.map { rounded($0, 4) }
            object["rotation"] = pose.rotation.array.map { rounded($0, 6) }
            object["forward"] = pose.forward.array.map { rounded($0, 6) }
            object["heading"] = rounded(pose.heading, 2).truncatingRemainder(dividingBy: 360)
        }
        if let geo = result.geo {
            object["geo"] = [
                "latitude": rounded(geo.latitude, 8),
                "longitude": rounded(geo.longitude, 8),
                "altitude": rounded(geo.altitude, 3),
                "heading": rounded(geo.heading, 2).truncatingRemainder(dividingBy: 360),
            ]
        }
        return object
    }

    /// A JSON object for an image that could not be processed at all.
    static func json(image: String, error: String) -> [String: Any] {
        ["image": image, "localized": false, "reason": error, "error": true]
    }

    static func text(image: String, result: LocalizationResult) -> [String] {
        func f(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }
        let t = result.timings
        let timings = "  timings    decode \(f(t.decode, 1)) ms, features \(f(t.features, 1)) ms, match \(f(t.match, 1)) ms, pose \(f(t.pose, 1)) ms, total \(f(t.total, 1)) ms"
        let error = result.reprojectionError.map { ", reprojection error \(f($0, 2)) px" } ?? ""
        guard result.localized, let pose = result.pose else {
            return [
                "\(image): not localized: \(result.reason ?? "no pose")",
                "  evidence   confidence \(f(result.confidence, 2)), \(result.inliers) inliers of \(result.matches) matches\(error)",
                timings,
            ]
        }
        var lines = [
            "\(image): localized (confidence \(f(result.confidence, 2)))",
            "  position   \(pose.position.array.map { f($0, 3) }.joined(separator: " ")) m",
            "  rotation   [\(pose.rotation.array.map { f($0, 5) }.joined(separator: ", "))] (x, y, z, w; camera to pack)",
            "  forward    \(pose.forward.array.map { f($0, 4) }.joined(separator: " "))",
            "  heading    \(f(pose.heading, 1))°",
            "  inliers    \(result.inliers) of \(result.matches) matches\(error)",
        ]
        if let geo = result.geo {
            lines.append("  geo        latitude \(f(geo.latitude, 7)), longitude \(f(geo.longitude, 7)), altitude \(f(geo.altitude, 2)) m, heading \(f(geo.heading, 1))° true")
        }
        lines.append(timings)
        return lines
    }
}
