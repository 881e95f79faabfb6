import Foundation

/// Where a query image's intrinsics come from.
///
/// Intrinsics always describe the image at its full size, as stored in the
/// file; when the decoder reduces the image (JPEG DCT scaling), they are
/// rescaled with ``CameraIntrinsics/scaled(by:)``.
public enum IntrinsicsSource: Sendable, Hashable {
    /// Given directly (`--intrinsics fx,fy,cx,cy[,k1,k2,p1,p2]`).
    case given(CameraIntrinsics)
    /// From a sidecar file, with the image size it describes.
    case sidecar(CameraIntrinsics.Sidecar, path: String)

    /// The sidecar of an image: `NAME.json` beside `NAME.jpg`, else `NAME.jpg.json`.
    ///
    /// - Returns: nil when neither file exists.
    /// - Throws: ``LocalizerError`` (`.invalidSidecar`) when the file exists but is malformed or unreadable.
    public static func sidecar(forImage path: String) throws(LocalizerError) -> IntrinsicsSource? {
        let url = URL(fileURLWithPath: path)
        let candidates = [url.deletingPathExtension().appendingPathExtension("json").path, path + ".json"]
        for candidate in candidates where candidate != path && FileManager.default.fileExists(atPath: candidate) {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: candidate))
            } catch {
                throw LocalizerError(.invalidSidecar, "sidecar \(candidate): cannot be read")
            }
            return .sidecar(try CameraIntrinsics.Sidecar(json: data, path: candidate), path: candidate)
        }
        return nil
    }

    /// The intrinsics of the image as decoded, checked against its size.
    ///
    /// - Parameters:
    ///   - originalWidth: the image's full width, as the file declares it.
    ///   - originalHeight: the image's full height.
    ///   - reduction: the decoder's reduction factor (1, 2, 4 or 8).
    /// - Throws: ``LocalizerError``: `.invalidSidecar` when a sidecar's size
    ///   differs from the image's or its values are implausible,
    ///   `.invalidIntrinsics` when given values are implausible.
    public func resolve(originalWidth: Int, originalHeight: Int, reduction: Int) throws(LocalizerError) -> CameraIntrinsics {
        let full: CameraIntrinsics
        switch self {
        case .given(let k):
            full = k
            try full.validate(width: originalWidth, height: originalHeight)
        case .sidecar(let sidecar, let path):
            guard sidecar.width == originalWidth, sidecar.height == originalHeight else {
                throw LocalizerError(.invalidSidecar, "sidecar \(path) describes a \(sidecar.width)x\(sidecar.height) image but the image is \(originalWidth)x\(originalHeight)")
            }
            full = sidecar.intrinsics
            do {
                try full.validate(width: originalWidth, height: originalHeight)
            } catch {
                // Bad values in a file are bad data (65), not a usage error.
                throw LocalizerError(.invalidSidecar, "sidecar \(path): \(error.message)")
            }
        }
        return reduction == 1 ? full : full.scaled(by: 1 / Double(reduction))
    }
}
