import Foundation
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
        var parts: [Data] = []
        var offset = 12
        for i in 0..<3 {
            var length = 0
            for b in 0..<4 { length |= Int(bytes[i * 4 + b]) << (8 * b) }
            let end = min(bytes.count, offset + length)
            parts.append(Data(bytes[offset..<end]))
            offset = end
        }
        parts.append(Data(bytes[offset...]))
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
}
