public import Foundation

/// Fetches offers and archives from an HTTP(S) server in DESIGN.md's static layout, over libcurl.
///
/// Small files (offers) come whole with a size cap; archives are streamed with
/// resume (`Range` plus `If-Range` with the strong ETag), bounded retries with
/// exponential backoff on transient failures, connect and low-speed timeouts,
/// and a hard stop at the expected length. See docs/network.md.
///
/// ```swift
/// let transport = HTTPTransport(baseURL: URL(string: "https://packs.example.com")!)
/// let offer = try transport.fetch("tours/demo/offer.json", limit: 64 * 1024)
/// ```
public struct HTTPTransport: Transport {
    /// Timeouts, retries and redirects.
    public struct Configuration: Sendable, Equatable {
        /// Seconds allowed to establish the TCP (and TLS) connection.
        public var connectTimeout: Double = 15
        /// A transfer slower than `lowSpeedLimit` bytes per second for `lowSpeedTime` seconds is a stall.
        public var lowSpeedLimit: Int = 1
        public var lowSpeedTime: Int = 30
        /// Attempts in a row that deliver no byte before the transfer gives up.
        public var maxAttempts: Int = 5
        /// The first retry waits this long; each further one doubles it, up to `maxBackoff`.
        public var initialBackoff: Double = 0.5
        public var maxBackoff: Double = 8
        /// More redirects than this are a loop.
        public var maxRedirects: Int = 5
        public var userAgent: String = "vpspack"
        /// A PEM file of CA certificates to verify HTTPS servers with, instead of the system's (a private CA).
        public var caFile: String?

        public init() {}

        /// The defaults, overridden by `VPSPACK_HTTP_CONNECT_TIMEOUT`, `VPSPACK_HTTP_STALL_TIMEOUT`,
        /// `VPSPACK_HTTP_ATTEMPTS` and `VPSPACK_HTTP_BACKOFF` when they hold numbers, and
        /// `VPSPACK_HTTP_CA_FILE` when it names a file.
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
            var c = Configuration()
            if let v = environment["VPSPACK_HTTP_CONNECT_TIMEOUT"].flatMap(Double.init), v > 0 { c.connectTimeout = v }
            if let v = environment["VPSPACK_HTTP_STALL_TIMEOUT"].flatMap(Int.init), v > 0 { c.lowSpeedTime = v }
            if let v = environment["VPSPACK_HTTP_ATTEMPTS"].flatMap(Int.init), v > 0 { c.maxAttempts = v }
            if let v = environment["VPSPACK_HTTP_BACKOFF"].flatMap(Double.init), v >= 0 {
                c.initialBackoff = v
                c.maxBackoff = max(c.maxBackoff, v)
            }
            if let file = environment["VPSPACK_HTTP_CA_FILE"], !file.isEmpty { c.caFile = file }
            return c
        }
    }

    /// The server root, such as `https://packs.example.com/venues`.
    public let baseURL: URL
    public let configuration: Configuration
    /// Raised on Ctrl-C; transfers stop with ``TransportError/interrupted``.
    public let cancellation: CancellationFlag?

    public init(baseURL: URL, configuration: Configuration = Configuration(), cancellation: CancellationFlag? = nil) {
        self.baseURL = baseURL
        self.configuration = configuration
        self.cancellation = cancellation
    }

    /// The absolute URL of a path under the server root.
    public func url(for path: String) -> String {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + path
    }

    public func fetch(_ path: String, limit: Int64) throws(TransportError) -> Data {
        let url = url(for: path)
        let handle = try CurlHandle()
        var retries = RetryBudget(configuration: configuration)
        while true {
            var data = Data()
            let exchange = HTTPExchange(
                handle: handle,
                request: .init(url: url),
                configuration: configuration,
                cancellation: cancellation,
                onResponse: { head in
                    guard head.status == 200 else { return .discard }
                    if let length = head.contentLength, length > limit { throw TransportError.tooLarge(url, limit: limit) }
                    return .accept
                },
                onBody: { bytes in
                    guard Int64(data.count + bytes.count) <= limit else { throw TransportError.tooLarge(url, limit: limit) }
                    data.append(contentsOf: bytes)
                    return true
                }
            )
            let result = exchange.perform()
            let outcome = classify(result, url: url, reachedServerBefore: retries.reachedServer)
            if result.head != nil { retries.reachedServer = true }
            switch outcome {
            case .response(let head) where head.status == 200:
                return data
            case .response(let head):
                throw statusError(head, url: url)
            case .retry(let error):
                try retries.wait(after: error, progressed: false, cancellation: cancellation)
            case .fail(let error as TransportError):
                throw error
            case .fail(let error):
                throw .io("\(url): \(error)")
            }
        }
    }

    public func stream(
        _ path: String,
        from offset: Int64,
        ifRange: String?,
        maxLength: Int64,
        restart: (StreamResponse) throws -> Void,
        sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> StreamResponse {
        try withoutActuallyEscaping(restart) { restart in
            try withoutActuallyEscaping(sink) { sink in
                try streamLoop(path, from: offset, ifRange: ifRange, maxLength: maxLength, restart: restart, sink: sink)
            }
        }
    }

    private func streamLoop(
        _ path: String,
        from offset: Int64,
        ifRange: String?,
        maxLength: Int64,
        restart: @escaping (StreamResponse) throws -> Void,
        sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws -> StreamResponse {
        let url = url(for: path)
        let handle = try CurlHandle()
        var retries = RetryBudget(configuration: configuration)
        // `position` is how many bytes the caller holds: the next byte the sink expects.
        var position = max(0, offset)
        // Bytes held past the cap cannot be the file asked for: start over.
        var validator: String? = position <= maxLength ? ifRange.flatMap(Self.strongValidator) : nil
        var response = StreamResponse(startOffset: position, etag: validator)

        while true {
            // Without a strong validator nothing proves the bytes held belong to the
            // same file, so the body is asked for from byte 0.
            let rangeStart: Int64? = (position > 0 && validator != nil) ? position : nil
            let expectedStart = rangeStart ?? 0
            var resourceChanged = false
            var delivered: Int64 = 0

            let exchange = HTTPExchange(
                handle: handle,
                request: .init(url: url, rangeStart: rangeStart, ifRange: rangeStart == nil ? nil : validator),
                configuration: configuration,
                cancellation: cancellation,
                onResponse: { head in
                    switch head.status {
                    case 200:
                        if let length = head.contentLength, length > maxLength {
                            throw TransportError.tooLarge(url, limit: maxLength)
                        }
                        position = 0
                        validator = head.strongETag
                        response = StreamResponse(startOffset: 0, etag: head.strongETag)
                        try restart(response)
                        return .accept
                    case 206:
                        guard let contentRange = head.contentRange, let range = contentRange.range else {
                            throw TransportError.protocolViolation(
                                "\(url): a 206 response without a valid Content-Range (got '\(head.headers["content-range"] ?? "none")')")
                        }
                        guard range.lowerBound == expectedStart else {
                            throw TransportError.protocolViolation(
                                "\(url): asked for bytes from \(expectedStart) but the server sent a range starting at \(range.lowerBound)")
                        }
                        if let total = contentRange.completeLength, total > maxLength {
                            throw TransportError.tooLarge(url, limit: maxLength)
                        }
                        if let sent = rangeStart != nil ? validator : nil, let tag = head.strongETag, tag != sent {
                            // The server ignored If-Range although the file changed: drop what is held.
                            resourceChanged = true
                            return .discard
                        }
                        if expectedStart == 0 {
                            position = 0
                            validator = head.strongETag
                            response = StreamResponse(startOffset: 0, etag: head.strongETag)
                            try restart(response)
                        } else if response.etag == nil {
                            response.etag = head.strongETag
                        }
                        return .accept
                    default:
                        return .discard
                    }
                },
                onBody: { bytes in
                    let room = maxLength - position
                    let count = Int(min(Int64(bytes.count), max(0, room)))
                    if count > 0 {
                        try sink(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
                        position += Int64(count)
                        delivered += Int64(count)
                    }
                    // Reading stops at the expected length, whatever the server still sends.
                    return position < maxLength
                }
            )
            let result = exchange.perform()
            let status = result.head?.status

            // Everything asked for has arrived: a failure after the last byte does not matter.
            if (status == 200 || status == 206), position == maxLength, !resourceChanged {
                switch result.failure {
                case .callback(let error)?: throw error
                default: return response
                }
            }

            let outcome = classify(result, url: url, reachedServerBefore: retries.reachedServer)
            if result.head != nil { retries.reachedServer = true }
            switch outcome {
            case .response(let head):
                if resourceChanged {
                    validator = nil
                    try retries.wait(after: .protocolViolation("\(url): the file changed while it was downloaded"),
                                     progressed: true, cancellation: cancellation, immediately: true)
                    continue
                }
                switch head.status {
                case 200, 206:
                    return response
                case 416:
                    // The range starts at or past the end: complete when the held bytes are exactly the file.
                    if let total = head.contentRange?.completeLength, total == position, rangeStart != nil {
                        return response
                    }
                    validator = nil
                    try retries.wait(after: .protocolViolation("\(url): the server cannot serve bytes from \(position) (HTTP 416)"),
                                     progressed: false, cancellation: cancellation, immediately: true)
                default:
                    throw statusError(head, url: url)
                }
            case .retry(let error):
                try retries.wait(after: error, progressed: delivered > 0, cancellation: cancellation)
            case .fail(let error):
                throw error
            }
        }
    }

    /// A validator usable in `If-Range`: a strong entity tag only.
    static func strongValidator(_ tag: String) -> String? {
        tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count >= 2 ? tag : nil
    }
}

/// What one attempt came to.
enum AttemptOutcome {
    /// A final response the caller interprets (2xx, 416, or a status mapped by ``statusError``).
    case response(HTTPResponseHead)
    /// A transient failure: try again from the bytes held.
    case retry(TransportError)
    case fail(any Error)
}

extension HTTPTransport {
    /// Sorts an exchange into success, transient failure or final failure.
    func classify(_ result: ExchangeResult, url: String, reachedServerBefore: Bool) -> AttemptOutcome {
        if let failure = result.failure {
            switch failure {
            case .cancelled:
                return .fail(TransportError.interrupted)
            case .callback(let error):
                return .fail(error)
            case .curl(let code, let message):
                return classifyCurl(code: code, message: message, url: url, reachedServerBefore: reachedServerBefore)
            }
        }
        guard let head = result.head else {
            return .retry(.unavailable("\(url): the server closed the connection without an answer"))
        }
        switch head.status {
        case 200...299, 416, 404, 410, 401, 403:
            return .response(head)
        case 408, 429, 500...599:
            return .retry(.unavailable("\(url): the server answered HTTP \(head.status)"))
        default:
            return .response(head)
        }
    }

    private func classifyCurl(code: Int, message: String, url: String, reachedServerBefore: Bool) -> AttemptOutcome {
        let host = URL(string: url)?.host ?? url
        switch code {
        case CurlCode.couldNotResolveHost, CurlCode.couldNotResolveProxy:
            return .fail(TransportError.unavailable("cannot resolve the host '\(host)' (DNS lookup failed: \(message))"))
        case CurlCode.couldNotConnect:
            let error = TransportError.unavailable("cannot connect to \(url) (\(message)); is the server running?")
            return reachedServerBefore ? .retry(error) : .fail(error)
        case CurlCode.operationTimedOut:
            return .retry(.unavailable("\(url): timed out (\(message))"))
        case CurlCode.tooManyRedirects:
            return .fail(TransportError.protocolViolation(
                "\(url): more than \(configuration.maxRedirects) redirects, probably a redirect loop (\(message))"))
        case CurlCode.partialFile, CurlCode.receiveError, CurlCode.sendError, CurlCode.gotNothing, CurlCode.http2, CurlCode.http2Stream:
            return .retry(.unavailable("\(url): the connection broke (\(message))"))
        case CurlCode.unsupportedProtocol:
            return .fail(TransportError.protocolViolation("\(url): the server redirected to a URL that is not HTTP(S) (\(message))"))
        case CurlCode.malformedURL:
            return .fail(TransportError.unavailable("\(url) is not a valid URL (\(message))"))
        case CurlCode.peerFailedVerification, CurlCode.sslConnectError:
            return .fail(TransportError.unavailable("\(url): the TLS connection failed (\(message))"))
        default:
            return .fail(TransportError.unavailable("\(url): \(message)"))
        }
    }

    /// The error for a final status that is not a success.
    func statusError(_ head: HTTPResponseHead, url: String) -> TransportError {
        switch head.status {
        case 404, 410:
            return .notFound("\(url) does not exist on the server (HTTP \(head.status))")
        case 401, 403:
            return .forbidden("\(url): the server refused access", status: head.status)
        case 300...399:
            return .protocolViolation("\(url): a redirect (HTTP \(head.status)) without a usable Location")
        default:
            return .protocolViolation("\(url): unexpected HTTP status \(head.status)")
        }
    }
}

/// Counts failed attempts and sleeps between them with exponential backoff.
struct RetryBudget {
    let configuration: HTTPTransport.Configuration
    /// Attempts in a row that delivered nothing.
    private(set) var failuresInARow = 0
    /// Every attempt, to bound a server that delivers a byte per connection forever.
    private(set) var attempts = 0
    /// True once any response came back: a refused connection after that is transient.
    var reachedServer = false

    init(configuration: HTTPTransport.Configuration) {
        self.configuration = configuration
    }

    /// Records a failed attempt and waits before the next, or throws `error` when the budget is spent.
    mutating func wait(
        after error: TransportError, progressed: Bool, cancellation: CancellationFlag?, immediately: Bool = false
    ) throws(TransportError) {
        attempts += 1
        failuresInARow = progressed ? 1 : failuresInARow + 1
        let limit = max(1, configuration.maxAttempts)
        if failuresInARow >= limit || attempts >= limit * 10 {
            throw error.givingUp(after: attempts)
        }
        guard !immediately else { return }
        let delay = min(configuration.maxBackoff, configuration.initialBackoff * pow(2, Double(failuresInARow - 1)))
        let deadline = Date().addingTimeInterval(delay)
        while Date() < deadline {
            if cancellation?.isRaised == true { throw .interrupted }
            Thread.sleep(forTimeInterval: min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
        if cancellation?.isRaised == true { throw .interrupted }
    }
}

extension TransportError {
    /// The same error, saying how many attempts were made.
    func givingUp(after attempts: Int) -> TransportError {
        guard attempts > 1 else { return self }
        let note = " (gave up after \(attempts) attempts)"
        switch self {
        case .unavailable(let m): return .unavailable(m + note)
        case .protocolViolation(let m): return .protocolViolation(m + note)
        default: return self
        }
    }
}
