import Foundation
import Localizer
import PackBuilder
import PackFormat
import VPSCrypto
import VPSImageIO

/// The parsers vpspack runs on bytes it did not make, one per fuzz target.
///
/// Each harness feeds the fuzzer's bytes to one parser and ignores the typed error
/// it throws: a thrown error is the right answer to bad input. A crash, a trap
/// (overflow, out-of-range index, force unwrap) or an AddressSanitizer report is a bug.
enum FuzzTarget: String, CaseIterable, Sendable {
    case offer, manifest, archive, map, jpeg, png, pgm, cli
    case colmapText = "colmap-text", colmapBinary = "colmap-binary", transforms, intrinsics

    /// The target named by `VPSFUZZ_TARGET`.
    static let selected: FuzzTarget? = ProcessInfo.processInfo.environment["VPSFUZZ_TARGET"].flatMap(FuzzTarget.init(rawValue:))

    func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .offer: Self.offer(Data(bytes))
        case .manifest: Self.manifest(Data(bytes))
        case .archive: Self.archive(bytes)
        case .map: Self.map(bytes)
        case .jpeg, .png, .pgm: Self.image(Array(bytes))
        case .cli: Self.cli(bytes)
        case .colmapText: Self.colmap(bytes, names: ["cameras.txt", "images.txt", "points3D.txt"], binary: false)
        case .colmapBinary: Self.colmap(bytes, names: ["cameras.bin", "images.bin", "points3D.bin"], binary: true)
        case .transforms: Self.transforms(Data(bytes))
        case .intrinsics: Self.intrinsics(Data(bytes))
        }
    }

    // MARK: - Harnesses

    /// The one key the offer harness trusts; its seeds are signed with it.
    static let trustedKey: Ed25519PrivateKey = {
        // A fixed seed keeps runs reproducible; it signs nothing outside fuzzing.
        guard let key = try? Ed25519PrivateKey(rawRepresentation: (0..<32).map { UInt8($0 &* 7 &+ 3) }) else {
            fatalError("cannot make the fuzzing key")
        }
        return key
    }()

    static func offer(_ data: Data) {
        guard let envelope = try? OfferEnvelope.decode(data) else { return }
        _ = try? envelope.verifiedOffer(trustedKeys: [trustedKey.publicKey], allowUnsigned: false)
        _ = try? envelope.verifiedOffer(trustedKeys: [], allowUnsigned: true)
        _ = envelope.encoded()
    }

    static func manifest(_ data: Data) {
        guard let manifest = try? Manifest.decode(data) else { return }
        try? manifest.validate()
        try? limits.check(manifest)
        _ = manifest.encoded()
    }

    /// Small caps so a compressed bomb costs milliseconds, not seconds, per input.
    static let limits = ArchiveLimits(maximumEntryLength: 1 << 20, maximumTotalLength: 4 << 20, maximumEntryCount: 64)

    /// The archive is read from a file, as the store reads a downloaded partial file.
    static let archivePath = FileManager.default.temporaryDirectory
        .appendingPathComponent("vpsfuzz-\(ProcessInfo.processInfo.processIdentifier).vpspack").path

    static func archive(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard FileManager.default.createFile(atPath: archivePath, contents: Data(bytes)) else {
            fatalError("cannot write \(archivePath)")
        }
        guard let reader = try? PackArchiveReader(path: archivePath, limits: limits) else { return }
        var total = 0
        try? reader.readFiles(blockSize: 1 << 14, onBlock: { _, block in total &+= block.count }, onFileEnd: { _ in })
    }

    /// Input: three little-endian UInt32 lengths (points, descriptors, index), then those
    /// three files, then the rest as keyframes.json.
    static func map(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 12 else { return }
        let parts = lengthPrefixed(bytes, count: 4)
        guard let map = try? MapData.decode(points: parts[0], descriptors: parts[1], index: parts[2], keyframes: parts[3]) else { return }
        try? map.validate()
    }

    /// A cap of 4 megapixels keeps a fuzzed header from asking for gigabytes.
    static func image(_ bytes: [UInt8]) {
        _ = try? ImageDecoder.decode(bytes: bytes, source: "fuzz", maxPixels: 4_000_000)
        _ = try? ImageDecoder.decode(bytes: bytes, source: "fuzz", maxDimension: 64, maxPixels: 4_000_000)
    }

    /// Input: the arguments separated by NUL bytes, parsed the way the commands parse theirs.
    static func cli(_ bytes: UnsafeBufferPointer<UInt8>) {
        let items = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        var arguments = Arguments(items)
        _ = arguments.wantsHelp
        _ = arguments.flag("--json")
        _ = arguments.flag("--allow-unsigned")
        _ = try? arguments.option("--store")
        _ = try? arguments.options("--attach")
        _ = try? arguments.required("--tour")
        _ = try? arguments.option("--radius", "a number of metres") { Double($0) }
        _ = try? arguments.option("--version", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        _ = arguments.positionals()
        try? arguments.finish()
    }

    /// A scratch directory of this process for the readers that take files.
    static let scratch: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vpsfuzz-\(ProcessInfo.processInfo.processIdentifier)-files")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Writes the three files of a COLMAP model (two little-endian UInt32 lengths, then the
    /// first two files, then the rest as the third) and reads the model back.
    static func colmap(_ bytes: UnsafeBufferPointer<UInt8>, names: [String], binary: Bool) {
        let parts = lengthPrefixed(bytes, count: 3)
        for (name, part) in zip(names, parts) {
            guard FileManager.default.createFile(atPath: scratch.appendingPathComponent(name).path, contents: part) else {
                fatalError("cannot write \(name) in \(scratch.path)")
            }
        }
        _ = binary ? try? COLMAPModel.readBinary(directory: scratch) : try? COLMAPModel.readText(directory: scratch)
    }

    static func transforms(_ data: Data) {
        let url = scratch.appendingPathComponent("transforms.json")
        guard FileManager.default.createFile(atPath: url.path, contents: data) else { fatalError("cannot write \(url.path)") }
        _ = try? TransformsFile.read(url)
    }

    /// Input: the `--intrinsics` text, a NUL byte, then a sidecar JSON; both are parsed and validated.
    static func intrinsics(_ data: Data) {
        let split = data.firstIndex(of: 0) ?? data.endIndex
        let text = String(decoding: data[data.startIndex..<split], as: UTF8.self)
        if let parsed = try? CameraIntrinsics(parsing: text) {
            try? parsed.validate(width: 640, height: 480)
        }
        guard split < data.endIndex else { return }
        if let sidecar = try? CameraIntrinsics.Sidecar(json: Data(data[(split + 1)...]), path: "fuzz.json") {
            try? sidecar.intrinsics.validate(width: sidecar.width, height: sidecar.height)
        }
    }

    /// `count - 1` little-endian UInt32 lengths, those parts, then the rest as the last part.
    static func lengthPrefixed(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> [Data] {
        let header = 4 * (count - 1)
        guard bytes.count >= header else { return Array(repeating: Data(), count: count) }
        var parts: [Data] = []
        var offset = header
        for i in 0..<(count - 1) {
            var length = 0
            for b in 0..<4 { length |= Int(bytes[i * 4 + b]) << (8 * b) }
            let end = min(bytes.count, offset + length)
            parts.append(Data(bytes[offset..<end]))
            offset = end
        }
        parts.append(Data(bytes[offset...]))
        return parts
    }
}
