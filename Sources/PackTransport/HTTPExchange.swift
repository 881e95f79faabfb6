internal import CCurl
import Foundation

/// One libcurl easy handle (`CURL *`), owned here and freed in `deinit` (`curl_easy_cleanup`).
///
/// A handle is reused for the attempts of one fetch, so a retry can reuse the
/// connection; it is never shared between threads.
final class CurlHandle {
    fileprivate let raw: UnsafeMutableRawPointer

    init() throws(TransportError) {
        CurlGlobal.ensureInitialized()
        guard let h = curl_easy_init() else { throw .io("libcurl could not create a transfer handle (curl_easy_init failed)") }
        raw = h
    }

    deinit { curl_easy_cleanup(raw) }
}

@available(*, unavailable)
extension CurlHandle: Sendable {}

/// `curl_global_init`, run once per process before the first handle.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    static func ensureInitialized() { _ = initialized }
}

/// Why one HTTP exchange did not complete normally.
enum ExchangeFailure {
    /// libcurl failed: its code and the text of its error buffer.
    case curl(code: Int, message: String)
    /// A callback threw (the sink, `restart`, a protocol check); rethrown as is.
    case callback(any Error)
    /// The cancellation flag was raised (Ctrl-C).
    case cancelled
}

/// The outcome of one HTTP GET: the final response head (after redirects) or why it failed.
struct ExchangeResult {
    /// The final response, when one was received.
    var head: HTTPResponseHead?
    /// Body bytes accepted by `onBody` during this exchange.
    var bodyBytes: Int64
    /// True when `onBody` asked to stop early (the length cap was reached); not a failure.
    var stoppedEarly: Bool
    var failure: ExchangeFailure?
}

/// What the exchange does with the final response before its body.
enum ResponseDecision {
    /// Hand the body to `onBody`.
    case accept
    /// Do not read the body at all (error statuses: their bodies never reach a sink).
    case discard
}

/// One HTTP GET over libcurl, with the response head reported before the body.
///
/// `onResponse` runs once for the final response (never for a redirect), before
/// any body byte; `onBody` receives the body in pieces and returns false to stop
/// reading (the exchange then ends as ``ExchangeResult/stoppedEarly``).
final class HTTPExchange {
    struct Request {
        var url: String
        /// Sends `Range: bytes=N-` when set.
        var rangeStart: Int64?
        /// Sends `If-Range` with this validator, together with a range.
        var ifRange: String?
    }

    private let handle: CurlHandle
    private let request: Request
    private let configuration: HTTPTransport.Configuration
    private let cancellation: CancellationFlag?
    private let onResponse: (HTTPResponseHead) throws -> ResponseDecision
    private let onBody: (UnsafeRawBufferPointer) throws -> Bool

    // State touched by the C callbacks during `curl_easy_perform`.
    private var current: HTTPResponseHead?
    private var inHeaderBlock = false
    private var decided: ResponseDecision?
    private var bodyBytes: Int64 = 0
    private var stoppedEarly = false
    private var callbackError: (any Error)?
    private var cancelled = false

    init(
        handle: CurlHandle,
        request: Request,
        configuration: HTTPTransport.Configuration,
        cancellation: CancellationFlag?,
        onResponse: @escaping (HTTPResponseHead) throws -> ResponseDecision,
        onBody: @escaping (UnsafeRawBufferPointer) throws -> Bool
    ) {
        self.handle = handle
        self.request = request
        self.configuration = configuration
        self.cancellation = cancellation
        self.onResponse = onResponse
        self.onBody = onBody
    }

    /// Runs the request to its end (`curl_easy_perform`).
    func perform() -> ExchangeResult {
        let h = handle.raw
        curl_easy_reset(h)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
            _ = vpspack_curl_setopt_string(h, CURLOPT_URL, request.url)
            _ = vpspack_curl_setopt_pointer(h, CURLOPT_ERRORBUFFER, errorPointer.baseAddress)
            _ = vpspack_curl_setopt_long(h, CURLOPT_NOSIGNAL, 1)
            _ = vpspack_curl_setopt_string(h, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = vpspack_curl_setopt_string(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            _ = vpspack_curl_setopt_long(h, CURLOPT_FOLLOWLOCATION, 1)
            _ = vpspack_curl_setopt_long(h, CURLOPT_MAXREDIRS, configuration.maxRedirects)
            _ = vpspack_curl_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
            _ = vpspack_curl_setopt_long(h, CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedLimit)
            _ = vpspack_curl_setopt_long(h, CURLOPT_LOW_SPEED_TIME, configuration.lowSpeedTime)
            _ = vpspack_curl_setopt_long(h, CURLOPT_BUFFERSIZE, 256 * 1024)
            _ = vpspack_curl_setopt_string(h, CURLOPT_USERAGENT, configuration.userAgent)
            if let caFile = configuration.caFile {
                _ = vpspack_curl_setopt_string(h, CURLOPT_CAINFO, caFile)
            }
            if let start = request.rangeStart {
                _ = vpspack_curl_setopt_string(h, CURLOPT_RANGE, "\(start)-")
                if let validator = request.ifRange {
                    headerList = curl_slist_append(headerList, "If-Range: \(validator)")
                }
            }
            // Never ask for a compressed transfer: archives are compressed already and
            // lengths must be byte counts of the file itself.
            headerList = curl_slist_append(headerList, "Accept-Encoding: identity")
            _ = vpspack_curl_setopt_slist(h, CURLOPT_HTTPHEADER, headerList)

            let context = Unmanaged.passUnretained(self).toOpaque()
            _ = vpspack_curl_setopt_data_callback(h, CURLOPT_HEADERFUNCTION, httpExchangeHeaderCallback)
            _ = vpspack_curl_setopt_pointer(h, CURLOPT_HEADERDATA, context)
            _ = vpspack_curl_setopt_data_callback(h, CURLOPT_WRITEFUNCTION, httpExchangeWriteCallback)
            _ = vpspack_curl_setopt_pointer(h, CURLOPT_WRITEDATA, context)
            _ = vpspack_curl_setopt_long(h, CURLOPT_NOPROGRESS, 0)
            _ = vpspack_curl_setopt_xferinfo_callback(h, httpExchangeProgressCallback)
            _ = vpspack_curl_setopt_pointer(h, CURLOPT_XFERINFODATA, context)
            let code = curl_easy_perform(h)
            // The handle outlives this call: leave it no pointer into this frame or this exchange.
            _ = vpspack_curl_setopt_pointer(h, CURLOPT_ERRORBUFFER, nil)
            _ = vpspack_curl_setopt_slist(h, CURLOPT_HTTPHEADER, nil)
            _ = vpspack_curl_setopt_pointer(h, CURLOPT_HEADERDATA, nil)
            _ = vpspack_curl_setopt_pointer(h, CURLOPT_WRITEDATA, nil)
            _ = vpspack_curl_setopt_pointer(h, CURLOPT_XFERINFODATA, nil)
            return code
        }

        // A response with an empty body never reached the write callback: decide now.
        if code == CURLE_OK, decided == nil, let head = current, !head.isRedirect {
            do { decided = try onResponse(head) } catch { callbackError = error }
        }

        var result = ExchangeResult(head: current, bodyBytes: bodyBytes, stoppedEarly: stoppedEarly, failure: nil)
        if let error = callbackError {
            result.failure = .callback(error)
        } else if cancelled {
            result.failure = .cancelled
        } else if code == CURLE_OK || (code == CURLE_WRITE_ERROR && (stoppedEarly || decided == .discard)) {
            result.failure = nil
        } else {
            let text = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let message = text.isEmpty ? String(cString: curl_easy_strerror(code)) : text
            result.failure = .curl(code: Int(code.rawValue), message: message)
        }
        return result
    }

    fileprivate func header(_ line: String) -> Bool {
        if line.hasPrefix("HTTP/") {
            current = HTTPResponseHead(statusLine: line.trimmingWhitespace())
            inHeaderBlock = true
        } else if line == "\r\n" || line == "\n" {
            inHeaderBlock = false
        } else if inHeaderBlock {
            current?.add(headerLine: line)
        }
        return !isCancelled()
    }

    fileprivate func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if isCancelled() { return false }
        guard let head = current else {
            callbackError = TransportError.protocolViolation("\(request.url): body without a response status line")
            return false
        }
        // The body of a redirect that libcurl is about to follow is nobody's business.
        if head.isRedirect && decided == nil { return true }
        if decided == nil {
            do { decided = try onResponse(head) } catch {
                callbackError = error
                return false
            }
        }
        guard decided == .accept else { return false }
        do {
            let more = try onBody(bytes)
            bodyBytes += Int64(bytes.count)
            if !more { stoppedEarly = true }
            return more
        } catch {
            callbackError = error
            return false
        }
    }

    fileprivate func isCancelled() -> Bool {
        if cancellation?.isRaised == true { cancelled = true }
        return cancelled
    }
}

@available(*, unavailable)
extension HTTPExchange: Sendable {}

private func httpExchangeHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let context else { return length }
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    return exchange.header(line) ? length : 0
}

private func httpExchangeWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let context else { return length }
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
    return exchange.body(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private func httpExchangeProgressCallback(_ context: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let context else { return 0 }
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
    return exchange.isCancelled() ? 1 : 0
}

/// libcurl result codes the transport tells apart (`CURLcode`).
enum CurlCode {
    static let couldNotResolveHost = Int(CURLE_COULDNT_RESOLVE_HOST.rawValue)
    static let couldNotResolveProxy = Int(CURLE_COULDNT_RESOLVE_PROXY.rawValue)
    static let couldNotConnect = Int(CURLE_COULDNT_CONNECT.rawValue)
    static let operationTimedOut = Int(CURLE_OPERATION_TIMEDOUT.rawValue)
    static let tooManyRedirects = Int(CURLE_TOO_MANY_REDIRECTS.rawValue)
    static let partialFile = Int(CURLE_PARTIAL_FILE.rawValue)
    static let receiveError = Int(CURLE_RECV_ERROR.rawValue)
    static let sendError = Int(CURLE_SEND_ERROR.rawValue)
    static let gotNothing = Int(CURLE_GOT_NOTHING.rawValue)
    static let http2 = Int(CURLE_HTTP2.rawValue)
    static let http2Stream = Int(CURLE_HTTP2_STREAM.rawValue)
    static let unsupportedProtocol = Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue)
    static let malformedURL = Int(CURLE_URL_MALFORMAT.rawValue)
    static let peerFailedVerification = Int(CURLE_PEER_FAILED_VERIFICATION.rawValue)
    static let sslConnectError = Int(CURLE_SSL_CONNECT_ERROR.rawValue)
}
