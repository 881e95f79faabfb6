import Foundation
import PackBuilder
import PackFormat

/// JUnit XML for CI: `<testsuites>`, one `<testsuite>` per pack, one `<testcase>` per check,
/// `<failure>` or `<skipped>` when it did not pass, the validation frames in `<system-out>`.
enum JUnitReport {
    static func xml(_ reports: [VerifyDeep.PackReport]) -> String {
        let all = reports.flatMap(\.checks)
        func count(_ checks: [VerifyDeep.Check], _ s: VerifyDeep.Status) -> Int { checks.filter { $0.status == s }.count }
        func seconds(_ checks: [VerifyDeep.Check]) -> String { String(format: "%.3f", checks.reduce(0) { $0 + $1.seconds }) }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"vpspack verify --deep\" tests=\"\(all.count)\" failures=\"\(count(all, .failed))\" errors=\"0\" skipped=\"\(count(all, .skipped))\" time=\"\(seconds(all))\">\n"
        for r in reports {
            xml += "  <testsuite name=\"\(escape(r.name))\" tests=\"\(r.checks.count)\" failures=\"\(count(r.checks, .failed))\" errors=\"0\" skipped=\"\(count(r.checks, .skipped))\" time=\"\(seconds(r.checks))\">\n"
            for c in r.checks {
                xml += "    <testcase classname=\"\(escape(r.name))\" name=\"\(escape(c.name))\" time=\"\(String(format: "%.3f", c.seconds))\">\n"
                switch c.status {
                case .failed: xml += "      <failure message=\"\(escape(c.message))\"/>\n"
                case .skipped: xml += "      <skipped message=\"\(escape(c.message))\"/>\n"
                case .passed: break
                }
                let text = ([c.message] + c.details).joined(separator: "\n")
                xml += "      <system-out>\(escape(text))</system-out>\n"
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    static func write(_ reports: [VerifyDeep.PackReport], to path: String) throws {
        do {
            try DurableFile.write(Data(xml(reports).utf8), to: URL(fileURLWithPath: path))
        } catch {
            throw BuildError(.io, "cannot write the JUnit report \(path): \(error.localizedDescription)")
        }
    }

    /// XML text and attribute escaping; control characters other than tab and newline become spaces.
    private static func escape(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n": out.unicodeScalars.append(ch)
            default: if ch.value < 0x20 { out += " " } else { out.unicodeScalars.append(ch) }
            }
        }
        return out
    }
}
