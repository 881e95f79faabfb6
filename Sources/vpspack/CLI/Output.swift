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
        writeAll(data, to: STDOUT_FILENO)
    }

    /// One JSON object on one line of stdout.
    func json(_ object: [String: Any]) {
        out(JSONText.encode(object))
    }

    private func write(_ text: String, to fd: Int32) {
        writeAll(Data(text.utf8), to: fd)
    }

    /// Writes every byte, retrying on EINTR and short writes; a closed pipe ends the output quietly.
    private func writeAll(_ data: Data, to fd: Int32) {
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, base + offset, raw.count - offset)
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
