public import Foundation

/// Measures a transfer: the rate over the last few seconds and the time left.
///
/// Pure bookkeeping over the samples it is given, so displays and tests share
/// one computation:
///
/// ```swift
/// var meter = TransferMeter(total: 200_000_000, window: 3)
/// meter.record(bytes: 1_000_000, at: Date())
/// meter.bytesPerSecond   // nil until two samples span some time
/// ```
public struct TransferMeter: Sendable {
    /// The expected length of the whole file.
    public let total: Int64
    /// Seconds of samples the rate is computed over.
    public let window: TimeInterval
    private var samples: [(time: Date, bytes: Int64)] = []

    public init(total: Int64, window: TimeInterval = 3) {
        self.total = total
        self.window = window
    }

    /// Bytes held so far (the last sample).
    public var bytes: Int64 { samples.last?.bytes ?? 0 }

    /// Adds a sample; a count lower than the last one (a restart from zero) starts the rate afresh.
    public mutating func record(bytes: Int64, at time: Date) {
        if let last = samples.last, bytes < last.bytes { samples.removeAll() }
        samples.append((time, bytes))
        // Keep one sample older than the window so the rate always spans the whole window.
        while samples.count > 2, time.timeIntervalSince(samples[1].time) >= window { samples.removeFirst() }
    }

    /// Bytes per second over the window; nil before two samples a measurable time apart.
    public var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        let seconds = last.time.timeIntervalSince(first.time)
        guard seconds > 0.05 else { return nil }
        return Double(last.bytes - first.bytes) / seconds
    }

    /// Seconds until `total` at the current rate; nil when the rate is unknown or zero.
    public var secondsLeft: TimeInterval? {
        guard let rate = bytesPerSecond, rate > 0 else { return nil }
        return Double(max(0, total - bytes)) / rate
    }

    /// The fraction done, in [0, 1].
    public var fraction: Double {
        total > 0 ? min(1, Double(bytes) / Double(total)) : 1
    }
}
