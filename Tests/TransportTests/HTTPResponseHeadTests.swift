import Testing
@testable import PackTransport

/// Parsing of what libcurl hands over: status lines, headers, Content-Range.
struct HTTPResponseHeadTests {
    @Test(arguments: [
        ("bytes 100-199/200", ContentRange(range: 100...199, completeLength: 200)),
        ("bytes 0-0/*", ContentRange(range: 0...0, completeLength: nil)),
        ("bytes */4096", ContentRange(range: nil, completeLength: 4096)),
        (" bytes 5-9/10 ", ContentRange(range: 5...9, completeLength: 10)),
    ])
    func validContentRanges(text: String, expected: ContentRange) {
        #expect(ContentRange(headerValue: text) == expected)
    }

    @Test(arguments: ["bytes 10-5/20", "bytes 0-20/20", "items 0-1/2", "bytes */*", "bytes 1-2", "bytes -1-2/9", "bytes a-b/c"])
    func invalidContentRanges(text: String) {
        #expect(ContentRange(headerValue: text) == nil)
    }

    @Test func statusLineAndHeaders() throws {
        var head = try #require(HTTPResponseHead(statusLine: "HTTP/1.1 206 Partial Content\r\n"))
        head.add(headerLine: "ETag: \"abc\"\r\n")
        head.add(headerLine: "content-length:  42\r\n")
        head.add(headerLine: "Content-Range: bytes 8-49/50\r\n")
        #expect(head.status == 206)
        #expect(head.strongETag == "\"abc\"")
        #expect(head.contentLength == 42)
        #expect(head.contentRange == ContentRange(range: 8...49, completeLength: 50))
        #expect(HTTPResponseHead(statusLine: "HTTP/2 200")?.status == 200)
        #expect(HTTPResponseHead(statusLine: "garbage") == nil)
    }

    @Test func weakETagIsNoValidator() {
        var head = HTTPResponseHead(status: 200)
        head.add(headerLine: "ETag: W/\"abc\"")
        #expect(head.strongETag == nil)
        #expect(HTTPTransport.strongValidator("W/\"abc\"") == nil)
        #expect(HTTPTransport.strongValidator("\"abc\"") == "\"abc\"")
    }

    @Test func environmentOverridesTheDefaults() {
        let c = HTTPTransport.Configuration.fromEnvironment([
            "VPSPACK_HTTP_CONNECT_TIMEOUT": "2.5", "VPSPACK_HTTP_STALL_TIMEOUT": "7", "VPSPACK_HTTP_ATTEMPTS": "9",
            "VPSPACK_HTTP_BACKOFF": "nonsense",
        ])
        #expect(c.connectTimeout == 2.5)
        #expect(c.lowSpeedTime == 7)
        #expect(c.maxAttempts == 9)
        #expect(c.initialBackoff == HTTPTransport.Configuration().initialBackoff)
    }
}
