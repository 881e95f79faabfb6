public import Foundation

/// Any transport made to stop on a ``CancellationFlag``: checked before a fetch and before every piece of a stream.
///
/// The HTTP transport checks the flag itself, inside libcurl's callbacks; this
/// wrapper gives the same Ctrl-C behaviour to transports that do not, such as a
/// local directory.
public struct CancellableTransport: Transport {
    public let base: any Transport
    public let cancellation: CancellationFlag

    public init(_ base: any Transport, cancellation: CancellationFlag) {
        self.base = base
        self.cancellation = cancellation
    }

    public func fetch(_ path: String, limit: Int64) throws(TransportError) -> Data {
        if cancellation.isRaised { throw .interrupted }
        return try base.fetch(path, limit: limit)
    }

    public func stream(
        _ path: String,
        from offset: Int64,
        ifRange: String?,
        maxLength: Int64,
        restart: (StreamResponse) throws -> Void,
        sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> StreamResponse {
        if cancellation.isRaised { throw TransportError.interrupted }
        let flag = cancellation
        return try base.stream(path, from: offset, ifRange: ifRange, maxLength: maxLength, restart: restart, sink: { bytes in
            if flag.isRaised { throw TransportError.interrupted }
            try sink(bytes)
        })
    }
}
