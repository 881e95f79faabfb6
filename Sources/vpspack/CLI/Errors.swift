import Localizer
import PackFormat
import PackStore
import PackTransport
import PackBuilder
import VPSCrypto
import VPSImageIO
import VPSSQLite

/// Maps an error of any layer to its exit status and one clear sentence.
///
/// Each layer's error type is matched here, in one place, so exit codes stay
/// those of DESIGN.md whatever command raised the error.
func describe(_ error: any Error) -> (ExitCode, String) {
    switch error {
    case let e as CryptoError:
        return (.dataError, e.message)
    case let e as LocalizerError:
        switch e.kind {
        case .invalidIntrinsics, .invalidOption: return (.usage, e.message)
        case .invalidSidecar, .invalidMap: return (.dataError, e.message)
        }
    case let e as PublishError:
        return (e.kind == .io ? .ioError : .dataError, e.message)
    case let e as PackFormatError:
        if case .io = e { return (.ioError, e.description) }
        return (.dataError, e.description)
    case let e as OfferError:
        return (.dataError, e.description)
    case let e as StoreError:
        return (storeExitCode(e), e.description)
    case let e as DownloadError:
        return (downloadExitCode(e), e.description)
    case let e as TransportError:
        return (transportExitCode(e), e.description)
    case let e as DatabaseError:
        return (.ioError, e.description)
    case let e as ImageError:
        return (e.kind == .io ? .ioError : .dataError, e.description)
    case let e as MapFormatError:
        return (.dataError, "the pack's map is invalid: \(e.description)")
    case let e as MapRegionError:
        return (.usage, e.description)
    case let e as BuildError:
        switch e.code {
        case .badData: return (.dataError, e.message)
        case .io: return (.ioError, e.message)
        case .usage: return (.usage, e.message)
        }
    default:
        return (.ioError, String(describing: error))
    }
}

private func storeExitCode(_ e: StoreError) -> ExitCode {
    switch e {
    case .notDownloaded: return .notDownloaded
    case .format(let f): if case .io = f { return .ioError } else { return .dataError }
    case .offer, .mismatch: return .dataError
    case .invalidAttachmentName, .noSuchAttachment: return .usage
    case .database(let d): return d.primaryCode == DatabaseError.corrupt || d.primaryCode == DatabaseError.notADatabase ? .dataError : .ioError
    case .newerSchema: return .dataError
    case .io, .location: return .ioError
    }
}

private func downloadExitCode(_ e: DownloadError) -> ExitCode {
    switch e {
    case .invalidServer, .invalidTour: return .usage
    case .offer, .archiveMismatch: return .dataError
    case .transport(let t): return transportExitCode(t)
    case .incomplete, .transportUnavailable: return .unavailable
    case .inProgress, .io: return .ioError
    case .store(let s): return storeExitCode(s)
    }
}

private func transportExitCode(_ e: TransportError) -> ExitCode {
    switch e {
    case .notFound, .forbidden, .unavailable, .protocolViolation: return .unavailable
    case .tooLarge: return .dataError
    case .io: return .ioError
    case .interrupted: return .interrupted
    }
}
