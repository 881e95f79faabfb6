/// The status line and headers of one HTTP response, as libcurl hands them over line by line.
///
/// Header names are kept lowercased; a repeated header keeps its last value.
struct HTTPResponseHead: Sendable, Equatable {
    var status: Int
    var headers: [String: String] = [:]

    init(status: Int, headers: [String: String] = [:]) {
        self.status = status
        self.headers = headers
    }

    /// Parses a status line such as `HTTP/1.1 206 Partial Content` or `HTTP/2 200`.
    init?(statusLine: String) {
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let code = Int(parts[1]), (100...599).contains(code) else {
            return nil
        }
        status = code
    }

    /// Adds one `Name: value` header line; lines without a colon are ignored.
    mutating func add(headerLine: String) {
        guard let colon = headerLine.firstIndex(of: ":") else { return }
        let name = headerLine[..<colon].trimmingWhitespace().lowercased()
        let value = headerLine[headerLine.index(after: colon)...].trimmingWhitespace()
        guard !name.isEmpty else { return }
        headers[name] = value
    }

    /// The entity tag, only when it is strong: a weak one (`W/"..."`) cannot validate a range (RFC 9110 13.1.5).
    var strongETag: String? {
        guard let tag = headers["etag"], tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 else { return nil }
        return tag
    }

    var contentLength: Int64? { headers["content-length"].flatMap { Int64($0) } }

    var contentRange: ContentRange? { headers["content-range"].flatMap(ContentRange.init(headerValue:)) }

    var isRedirect: Bool { (300...399).contains(status) && headers["location"] != nil }
}

/// A `Content-Range` header value: `bytes FIRST-LAST/TOTAL`, `bytes FIRST-LAST/*` or `bytes */TOTAL` (RFC 9110 14.4).
struct ContentRange: Sendable, Equatable {
    /// The first and last byte positions, inclusive; nil for the unsatisfied form `bytes */TOTAL` of a 416.
    var range: ClosedRange<Int64>?
    /// The complete length of the resource; nil when the server wrote `*`.
    var completeLength: Int64?

    init(range: ClosedRange<Int64>?, completeLength: Int64?) {
        self.range = range
        self.completeLength = completeLength
    }

    init?(headerValue: String) {
        let value = headerValue.trimmingWhitespace()
        guard value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count)
        guard let slash = spec.firstIndex(of: "/") else { return nil }
        let rangePart = spec[..<slash]
        let lengthPart = spec[spec.index(after: slash)...]
        if lengthPart == "*" {
            completeLength = nil
        } else {
            guard let total = Int64(lengthPart), total >= 0 else { return nil }
            completeLength = total
        }
        if rangePart == "*" {
            guard completeLength != nil else { return nil }
            range = nil
        } else {
            let bounds = rangePart.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, first <= last else {
                return nil
            }
            if let total = completeLength, last >= total { return nil }
            range = first...last
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let f = scalars.first, f == " " || f == "\t" || f == "\r" || f == "\n" { scalars.removeFirst() }
        while let l = scalars.last, l == " " || l == "\t" || l == "\r" || l == "\n" { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
