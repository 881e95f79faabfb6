/// Caps that bound what reading an archive may cost, whatever the archive declares.
public struct ArchiveLimits: Sendable, Equatable {
    /// The largest single file, in bytes.
    public var maximumEntryLength: Int64
    /// The largest sum of all file lengths, in bytes.
    public var maximumTotalLength: Int64
    /// The most files in one pack (manifest.json not counted).
    public var maximumEntryCount: Int

    public init(maximumEntryLength: Int64, maximumTotalLength: Int64, maximumEntryCount: Int) {
        self.maximumEntryLength = maximumEntryLength
        self.maximumTotalLength = maximumTotalLength
        self.maximumEntryCount = maximumEntryCount
    }

    /// 4 GiB per file, 16 GiB in all, 100 000 files.
    public static let standard = ArchiveLimits(
        maximumEntryLength: 4 << 30, maximumTotalLength: 16 << 30, maximumEntryCount: 100_000
    )

    /// Checks a manifest against the caps before any entry is read.
    public func check(_ manifest: Manifest) throws(PackFormatError) {
        guard manifest.files.count <= maximumEntryCount else { throw .tooManyEntries(limit: maximumEntryCount) }
        var total: Int64 = 0
        for file in manifest.files {
            guard file.length <= maximumEntryLength else { throw .entryTooLarge(file.path, limit: maximumEntryLength) }
            total += file.length
            guard total <= maximumTotalLength else { throw .totalTooLarge(limit: maximumTotalLength) }
        }
    }
}
