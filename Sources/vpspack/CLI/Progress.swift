import Foundation
import PackTransport

/// The progress of one download, shown three ways.
///
/// - stdout is a terminal: one line redrawn in place (bytes, percent, rate, time left).
/// - stdout is not a terminal: a plain line every few seconds, and one at the end.
/// - `--json`: a `{"event":"progress",...}` object per line at most twice a second, and one at the end.
///
/// The command calls ``update(bytes:total:)`` as bytes arrive and ``finish()`` once.
final class ProgressDisplay {
    enum Style {
        case terminal
        case lines
        case json
    }

    let style: Style
    private let output: Output
    private let label: String
    private let clock: () -> Date
    private var meter: TransferMeter?
    private var lastShown = Date.distantPast

    /// Seconds between two displays in each style.
    static let terminalInterval: TimeInterval = 0.1
    static let lineInterval: TimeInterval = 5
    static let jsonInterval: TimeInterval = 0.5

    init(output: Output, json: Bool, label: String, clock: @escaping () -> Date = Date.init) {
        self.output = output
        self.label = label
        self.clock = clock
        style = json ? .json : (output.stdoutIsTerminal ? .terminal : .lines)
    }

    func update(bytes: Int64, total: Int64) {
        let now = clock()
        if meter == nil || meter?.total != total { meter = TransferMeter(total: total) }
        meter?.record(bytes: bytes, at: now)
        let interval: TimeInterval
        switch style {
        case .terminal: interval = Self.terminalInterval
        case .lines: interval = Self.lineInterval
        case .json: interval = Self.jsonInterval
        }
        // A terminal shows the first sample at once; logs wait one interval, for a rate.
        if lastShown == .distantPast && style != .terminal { lastShown = now }
        guard now.timeIntervalSince(lastShown) >= interval else { return }
        show(final: false)
        lastShown = now
    }

    /// Shows the final state (100 % or wherever it stopped) and ends the terminal line.
    func finish() {
        guard meter != nil else { return }
        show(final: true)
        if style == .terminal { output.outPartial("\n") }
    }

    private func show(final: Bool) {
        guard let meter else { return }
        let rate = meter.bytesPerSecond
        let left = meter.secondsLeft
        switch style {
        case .json:
            var event: [String: Any] = ["event": "progress", "tour": label, "bytes": meter.bytes, "total": meter.total]
            if let rate { event["bytesPerSecond"] = Int64(rate.rounded()) }
            if let left, !final { event["secondsLeft"] = Int64(left.rounded(.up)) }
            output.json(event)
        case .terminal:
            output.outPartial("\r\u{1b}[K" + Self.describe(label: label, meter: meter, rate: rate, left: final ? nil : left))
        case .lines:
            output.out(Self.describe(label: label, meter: meter, rate: rate, left: final ? nil : left))
        }
    }

    /// `demo: 45.2 MB of 200.0 MB (22%), 38.1 MB/s, 4 s left`
    static func describe(label: String, meter: TransferMeter, rate: Double?, left: TimeInterval?) -> String {
        var text = "\(label): \(bytes(meter.bytes)) of \(bytes(meter.total)) (\(Int(meter.fraction * 100))%)"
        if let rate { text += ", \(bytes(Int64(rate)))/s" }
        if let left { text += ", \(duration(left)) left" }
        return text
    }

    /// Decimal units, one decimal: `1.9 MB`; exact below 1 kB.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// `4 s`, `3 min 20 s`, `1 h 05 min`.
    static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return String(format: "%d h %02d min", s / 3600, (s % 3600) / 60)
    }
}

extension Output {
    /// Writes `text` to stdout without a newline (a progress line redrawn with `\r`).
    func outPartial(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
