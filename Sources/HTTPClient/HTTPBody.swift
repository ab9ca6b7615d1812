/// A request body held in memory that libcurl reads in place (`CURLOPT_POSTFIELDS`), so a body
/// exists once per request while it is in flight.
///
/// With a `[UInt8]` body, libcurl must copy it (`CURLOPT_COPYPOSTFIELDS`: a Swift array's storage
/// may not be borrowed past the call), and the caller keeps its own array for a possible second
/// call (verifyReceipt's 21007 switch to the sandbox): two copies of a 6 KiB receipt for every
/// verification in flight. An `HTTPBody` is allocated once, never written after `init`, and
/// retained by each transfer that sends it, which is also what makes `@unchecked Sendable` sound.
public final class HTTPBody: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` once.
    public init(_ bytes: some Collection<UInt8>) {
        storage = .allocate(byteCount: max(1, bytes.count), alignment: 1)
        _ = storage.initializeMemory(as: UInt8.self, from: bytes)
        count = bytes.count
    }

    /// Bytes written in place by `write`, which receives exactly `capacity` bytes of storage and
    /// returns how many it wrote (at most `capacity`): no intermediate array for a body built
    /// from parts.
    public init(capacity: Int, _ write: (UnsafeMutableRawBufferPointer) -> Int) {
        storage = .allocate(byteCount: max(1, capacity), alignment: 1)
        let written = write(UnsafeMutableRawBufferPointer(rebasing: storage[..<capacity]))
        precondition((0...capacity).contains(written), "HTTPBody writer reported \(written) bytes for \(capacity)")
        count = written
    }

    /// The body's length in bytes.
    public let count: Int

    /// The bytes, for reading.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[..<count]))
    }

    /// Engine thread: the address handed to libcurl, valid while this object lives.
    var baseAddress: UnsafeMutableRawPointer { storage.baseAddress! }

    deinit { storage.deallocate() }
}
