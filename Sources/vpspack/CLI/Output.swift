@preconcurrency import Glibc
import Foundation

/// Where a command writes: results to stdout, messages and errors to stderr.
final class Output {
    /// True when stdout is a terminal (progress bars, colours).
    let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    let stderrIsTerminal = isatty(STDERR_FILENO) == 1

    func out(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    func err(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Writes raw bytes to stdout (attachments).
    func outBytes(_ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }

    /// One JSON object on one line of stdout.
    func json(_ object: [String: Any]) {
        out(JSONText.encode(object))
    }

    private func write(_ text: String, to fd: Int32) {
        outBytesTo(fd, Data(text.utf8))
    }

    private func outBytesTo(_ fd: Int32, _ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }
}

/// Compact, key-sorted JSON text for machine output.
enum JSONText {
    static func encode(_ object: Any) -> String {
        guard JSONSerialization.isValidJSONObject(object),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
