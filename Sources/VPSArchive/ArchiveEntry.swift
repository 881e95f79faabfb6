/// The header of one archive entry as the archive declares it.
///
/// Nothing here is trusted: the size is what the header claims, the reader of
/// the data must still count the bytes it actually gets.
public struct ArchiveEntry: Sendable, Equatable {
    /// What kind of file an entry is.
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        case regular
        case directory
        case symbolicLink
        /// A hard link to an earlier entry (`archive_entry_hardlink` is set).
        case hardLink
        case characterDevice
        case blockDevice
        case fifo
        case socket
        case unknown

        public var description: String {
            switch self {
            case .regular: "regular file"
            case .directory: "directory"
            case .symbolicLink: "symbolic link"
            case .hardLink: "hard link"
            case .characterDevice: "character device"
            case .blockDevice: "block device"
            case .fifo: "FIFO"
            case .socket: "socket"
            case .unknown: "file of unknown type"
            }
        }
    }

    /// The path as stored in the archive, not normalised in any way.
    public var path: String
    public var kind: Kind
    /// The size the header declares, or nil when the header gives none.
    public var declaredSize: Int64?
    /// The target of a link entry.
    public var linkTarget: String?
    /// Permission bits, such as 0o644.
    public var permissions: UInt32
    /// Modification time, seconds since 1970.
    public var modificationTime: Int64

    public init(
        path: String, kind: Kind, declaredSize: Int64?, linkTarget: String? = nil,
        permissions: UInt32 = 0o644, modificationTime: Int64 = 0
    ) {
        self.path = path
        self.kind = kind
        self.declaredSize = declaredSize
        self.linkTarget = linkTarget
        self.permissions = permissions
        self.modificationTime = modificationTime
    }
}

/// File type bits of `archive_entry_filetype` (the AE_IF* macros, which Swift cannot import).
enum FileTypeBits {
    static let mask: UInt32 = 0o170000
    static let regular: UInt32 = 0o100000
    static let symbolicLink: UInt32 = 0o120000
    static let socket: UInt32 = 0o140000
    static let characterDevice: UInt32 = 0o020000
    static let blockDevice: UInt32 = 0o060000
    static let directory: UInt32 = 0o040000
    static let fifo: UInt32 = 0o010000
}
