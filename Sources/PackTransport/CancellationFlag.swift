import Foundation

/// A flag a long transfer checks between pieces of data; raising it stops the transfer.
///
/// The command-line tool raises it on Ctrl-C (SIGINT, delivered through a
/// dispatch source, never from a signal handler), so a download stops at a clean
/// point and leaves a partial file that the next `download` resumes.
public final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    public init() {}

    /// Asks every transfer that checks this flag to stop.
    public func raise() {
        lock.lock()
        raised = true
        lock.unlock()
    }

    public var isRaised: Bool {
        lock.lock()
        defer { lock.unlock() }
        return raised
    }
}
