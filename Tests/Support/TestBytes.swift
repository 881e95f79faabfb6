public import VPSArchive

/// Deterministic test data shared by every test target.
public enum TestBytes {
    /// `count` pseudo-random bytes from a PCG-style generator: the same seed gives the same bytes.
    ///
    /// Eight bytes per step, so debug builds stay fast for multi-megabyte fixtures.
    public static func pseudoRandom(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &+ 0x9e37_79b9_7f4a_7c15
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            var i = 0
            while i < count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                var word = (state ^ (state >> 29)).littleEndian
                withUnsafeBytes(of: &word) { w in
                    base.advanced(by: i).copyMemory(from: w.baseAddress!, byteCount: min(8, count - i))
                }
                i += 8
            }
        }
        return out
    }
}

/// Hand-made archives for the tests that feed the reader what a writer of ours never would.
public enum TestArchives {
    /// Writes `manifest` (raw manifest.json bytes, when given) first, then the entries exactly as listed.
    public static func write(
        at path: String, manifest: [UInt8]?, entries: [(ArchiveEntry, [UInt8])],
        compression: ArchiveWriter.Compression = .zstd(level: 3)
    ) throws {
        let writer = try ArchiveWriter(path: path, compression: compression)
        if let manifest {
            try writer.begin(ArchiveEntry(path: "manifest.json", kind: .regular, declaredSize: Int64(manifest.count)))
            try writer.write(manifest)
        }
        for (entry, data) in entries {
            try writer.begin(entry)
            if !data.isEmpty { try writer.write(data) }
        }
        try writer.finish()
    }

    /// A regular-file entry with its bytes.
    public static func regular(_ path: String, _ data: [UInt8]) -> (ArchiveEntry, [UInt8]) {
        (ArchiveEntry(path: path, kind: .regular, declaredSize: Int64(data.count)), data)
    }
}
