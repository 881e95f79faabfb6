import Foundation
import PackTransport
import Testing

struct TransferMeterTests {
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    @Test func rateAndTimeLeftFollowTheWindow() throws {
        var meter = TransferMeter(total: 1000, window: 2)
        meter.record(bytes: 0, at: t0)
        #expect(meter.bytesPerSecond == nil)
        meter.record(bytes: 100, at: t0.addingTimeInterval(1))
        #expect(meter.bytesPerSecond == 100)
        #expect(meter.secondsLeft == 9)
        // A faster second: the window (2 s) forgets the slow start.
        meter.record(bytes: 400, at: t0.addingTimeInterval(2))
        meter.record(bytes: 700, at: t0.addingTimeInterval(3))
        #expect(meter.bytesPerSecond == 300)
        #expect(meter.secondsLeft == 1)
        #expect(meter.fraction == 0.7)
    }

    @Test func restartFromZeroResetsTheRate() {
        var meter = TransferMeter(total: 1000)
        meter.record(bytes: 500, at: t0)
        meter.record(bytes: 600, at: t0.addingTimeInterval(1))
        meter.record(bytes: 10, at: t0.addingTimeInterval(2))
        #expect(meter.bytesPerSecond == nil)
        #expect(meter.bytes == 10)
    }

    @Test func stalledTransferHasNoTimeLeft() {
        var meter = TransferMeter(total: 1000)
        meter.record(bytes: 100, at: t0)
        meter.record(bytes: 100, at: t0.addingTimeInterval(1))
        #expect(meter.bytesPerSecond == 0)
        #expect(meter.secondsLeft == nil)
    }
}
