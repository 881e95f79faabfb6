@preconcurrency import Glibc
import Dispatch
import PackTransport

/// Turns Ctrl-C (SIGINT) into a raised ``CancellationFlag`` while a transfer runs.
///
/// SIGINT is ignored as a signal and received through a dispatch source, so
/// nothing runs in signal-handler context; the transfer notices the flag at its
/// next callback and stops cleanly. A second Ctrl-C ends the process at once.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    init(raising flag: CancellationFlag) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            flag.raise()
            signal(SIGINT, SIG_DFL)
        }
        source.resume()
    }

    /// Gives SIGINT back its default action.
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
