/// Where `ExportWriter` puts the zip: appended in order, plus one kind of going back — each entry's local
/// header is rewritten once its CRC-32 and sizes are known. That keeps the archive free of data descriptors
/// (which some zip readers mishandle for stored entries) without holding an entry in memory to measure it.
///
/// ENCore does no I/O: `InMemoryExportOutput` is here; a file-backed output lives with the caller.
public protocol ExportOutput {
    /// Bytes written so far: where the next `append` lands.
    var count: Int { get }
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(ExportWriteError)
    /// Replaces bytes already written; `offset + bytes.count` never exceeds `count`.
    mutating func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) throws(ExportWriteError)
}

/// The whole archive in a byte array: for small exports, tests and the demo's key server.
public struct InMemoryExportOutput: ExportOutput, Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var count: Int { bytes.count }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(ExportWriteError) {
        self.bytes.append(contentsOf: bytes)
    }

    public mutating func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) throws(ExportWriteError) {
        precondition(offset >= 0 && offset + bytes.count <= self.bytes.count, "overwrite past the end")
        self.bytes.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    }
}

extension ExportOutput {
    mutating func append(_ bytes: [UInt8]) throws(ExportWriteError) {
        try bytes.withBytes { (raw) throws(ExportWriteError) in try append(raw) }
    }

    mutating func overwrite(at offset: Int, with bytes: [UInt8]) throws(ExportWriteError) {
        try bytes.withBytes { (raw) throws(ExportWriteError) in try overwrite(at: offset, with: raw) }
    }
}
