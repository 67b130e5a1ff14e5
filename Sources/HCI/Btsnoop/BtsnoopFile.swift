import SystemIO

/// A btsnoop capture on disk, written one record per packet as the transport sees them.
///
/// A capture is a diagnostic, never a reason to stop the agent: every failure is thrown for the caller
/// to log and count. After a failed write the file is cut back to its last complete record, so a
/// full disk leaves a capture btmon can still open, and later writes may succeed once space frees up.
/// Writes are not fsync'd: losing the last packets on power loss is fine for a debug log.
public final class BtsnoopFile {
    public let path: String
    public private(set) var recordsWritten = 0
    private var descriptor: Int32
    /// File size after the last complete record: where a failed write is cut back to.
    private var committedLength: Int

    /// Creates (or truncates) `path` with mode 0600, since captures hold addresses and RPIs, and writes the header.
    public init(path: String) throws(BtsnoopFileError) {
        let descriptor: Int32
        do { descriptor = try Posix.open(path, .writeOnly, [.create, .truncate], mode: 0o600) } catch {
            throw .openFailed(path: path, errno: error.code)
        }
        // O_TRUNC keeps the mode of an existing file, and a capture must not stay world-readable; but
        // only a regular file is ours to change (a path like /dev/null must keep its mode).
        Posix.restrictRegularFile(descriptor, to: 0o600)
        self.path = path
        self.descriptor = descriptor
        committedLength = 0
        do {
            try append(BtsnoopFormat.fileHeader)
        } catch {
            close()
            throw error
        }
    }

    deinit {
        if descriptor >= 0 { DescriptorIO.close(descriptor) }
    }

    public var isOpen: Bool { descriptor >= 0 }

    /// Appends one record; `unixMicroseconds` is when the packet crossed the transport.
    public func write(_ packet: H4Packet, direction: BtsnoopDirection, unixMicroseconds: Int64) throws(BtsnoopFileError) {
        try write(BtsnoopRecord(packet: packet, direction: direction, unixMicroseconds: unixMicroseconds))
    }

    public func write(_ record: BtsnoopRecord) throws(BtsnoopFileError) {
        try append(record.encoded())
        recordsWritten += 1
    }

    public func close() {
        guard descriptor >= 0 else { return }
        DescriptorIO.close(descriptor)
        descriptor = -1
    }

    private func append(_ bytes: [UInt8]) throws(BtsnoopFileError) {
        guard descriptor >= 0 else { throw .closed }
        let failure: SystemError? = bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try Posix.writeAll(raw, to: descriptor) } catch { return error }
            return nil
        }
        if let failure {
            // Drop the partial record so the file stays readable; best effort, the error is what matters.
            try? Posix.truncate(descriptor, to: Int64(committedLength))
            Posix.seek(descriptor, to: Int64(committedLength))
            throw .writeFailed(errno: failure.code)
        }
        committedLength += bytes.count
    }
}
