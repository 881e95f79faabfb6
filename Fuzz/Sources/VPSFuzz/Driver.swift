import Foundation

// libFuzzer's entry points. SwiftPM links an executable with `--defsym main=VPSFuzz_main`,
// so `main` below hands control to libFuzzer's driver with the fuzzing callback.

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Runs one input through the target chosen by `VPSFUZZ_TARGET`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = FuzzTarget.selected else {
        fatalError("set VPSFUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    target.run(UnsafeBufferPointer(start: size > 0 ? data : nil, count: size))
    return 0
}

/// `VPSFuzz --write-seeds DIR` writes the seed corpora; anything else goes to libFuzzer.
@_cdecl("VPSFuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    if argc == 3, let flag = argv[1], String(cString: flag) == "--write-seeds", let dir = argv[2] {
        do {
            try SeedWriter.write(into: URL(fileURLWithPath: String(cString: dir)))
            return 0
        } catch {
            FileHandle.standardError.write(Data("cannot write the seeds: \(error)\n".utf8))
            return 1
        }
    }
    guard FuzzTarget.selected != nil else {
        FileHandle.standardError.write(Data("set VPSFUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        return 64
    }
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}
