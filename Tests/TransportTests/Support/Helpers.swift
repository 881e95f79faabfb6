import Foundation
import PackTransport
import VPSCrypto

/// Deterministic pseudo-random bytes (a 64-bit LCG), so a wrong byte anywhere changes the hash.
func testBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed &* 6364136223846793005 &+ 1442695040888963407
    var out = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        out[i] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return out
}

/// Transport settings that keep failing tests short: quick retries, a one-second stall limit.
func fastConfiguration(attempts: Int = 3, stall: Int = 2) -> HTTPTransport.Configuration {
    var c = HTTPTransport.Configuration()
    c.connectTimeout = 2
    c.lowSpeedTime = stall
    c.maxAttempts = attempts
    c.initialBackoff = 0.01
    c.maxBackoff = 0.05
    return c
}

/// Plays the part of the downloader: holds bytes, drops them on `restart`, appends what the sink gets.
final class Receiver {
    var bytes: [UInt8]
    var restarts: [StreamResponse] = []
    var sinkCalls = 0
    /// Thrown from the sink once `bytes` reaches this many, to stand for a full disk or Ctrl-C.
    var failAt: Int?
    var failure: (any Error)?

    init(holding bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    @discardableResult
    func receive(
        _ transport: any Transport, _ path: String, ifRange: String?, maxLength: Int64
    ) throws -> StreamResponse {
        try transport.stream(
            path, from: Int64(bytes.count), ifRange: ifRange, maxLength: maxLength,
            restart: { response in
                self.restarts.append(response)
                self.bytes.removeAll()
            },
            sink: { chunk in
                self.sinkCalls += 1
                if let limit = self.failAt, self.bytes.count + chunk.count > limit, let failure = self.failure {
                    self.bytes.append(contentsOf: chunk[0..<max(0, limit - self.bytes.count)])
                    throw failure
                }
                self.bytes.append(contentsOf: chunk)
            }
        )
    }

    var sha256: String { SHA256.hash(bytes).hex }
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory(_ name: String = "vpspack-test") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
