import Localizer
import PackFormat
import VPSCrypto
import VPSImageIO

/// Maps an error of any layer to its exit status and one clear sentence.
///
/// Each layer's error type is matched here, in one place, so exit codes stay
/// those of DESIGN.md whatever command raised the error.
func describe(_ error: any Error) -> (ExitCode, String) {
    switch error {
    case let e as CryptoError:
        return (.dataError, e.message)
    case let e as ImageError:
        return (e.kind == .io ? .ioError : .dataError, e.description)
    case let e as MapFormatError:
        return (.dataError, "the pack's map is invalid: \(e.description)")
    case let e as MapRegionError:
        return (.usage, e.description)
    default:
        return (.ioError, String(describing: error))
    }
}
