#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time of the calling thread, for benchmarks on a shared machine: unlike
/// wall-clock time it does not count the time other processes hold the CPU.
enum BenchClock {
    /// Milliseconds of CPU time this thread has used.
    static func threadMilliseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }
}
