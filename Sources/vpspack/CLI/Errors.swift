import Localizer
import VPSCrypto

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
    default:
        return (.ioError, String(describing: error))
    }
}
