import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A readable reason for a file-system error from Foundation.
///
/// Foundation on Linux reports many write failures as a generic Cocoa error
/// ("The operation could not be completed"), with the `errno` underneath; this
/// digs the `errno` out so a full disk says so.
enum IOErrorText {
    static func describe(_ error: any Error) -> String {
        let ns = error as NSError
        let posix: Int32? =
            if ns.domain == NSPOSIXErrorDomain { Int32(ns.code) }
            else if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
                Int32(underlying.code)
            } else { nil }
        guard let code = posix else { return ns.localizedDescription }
        let text = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT: return "\(text): the disk holding the store is full"
        case EFBIG: return "\(text): a file-size limit was reached, as on a full disk"
        default: return text
        }
    }
}
