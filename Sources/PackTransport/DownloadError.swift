public import PackFormat
public import PackStore

/// Why a download (or an offer check) failed.
///
/// Every case leaves the store as it was.
public enum DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `--server` value is not a directory, file:// or http(s):// location.
    case invalidServer(String)
    /// The tour name is not valid.
    case invalidTour(String)
    /// The offer was refused: malformed, unsigned, untrusted, expired, wrong tour, rollback, format.
    case offer(OfferError)
    /// Fetching failed.
    case transport(TransportError)
    /// The archive's length or SHA-256 differs from the offer's.
    case archiveMismatch(String)
    /// The server sent fewer bytes than the offer promises; the partial file is kept for a resume.
    case incomplete(received: Int64, expected: Int64)
    /// Another process is downloading this tour into this store now.
    case inProgress(tour: String, server: String)
    /// The transport for this kind of server is not built in.
    case transportUnavailable(String)
    /// The store refused the pack or failed.
    case store(StoreError)
    /// A local file (partial download) could not be read or written.
    case io(String)

    public var description: String {
        switch self {
        case .invalidServer(let why), .invalidTour(let why), .archiveMismatch(let why), .transportUnavailable(let why), .io(let why):
            return why
        case .offer(let e): return e.description
        case .transport(let e): return e.description
        case .incomplete(let received, let expected):
            return "the server sent \(received) of \(expected) bytes; the partial download is kept, run the same download again to resume"
        case .inProgress(let tour, let server):
            return "tour '\(tour)' from \(server) is being downloaded by another vpspack process; wait for it to finish"
        case .store(let e): return e.description
        }
    }
}
