import SystemIO

/// The real file system, except that every write reaches the file in small pieces, one system call
/// each: a kill in the middle of a flush then leaves a torn record, as a power cut can (the card
/// persisting part of a write), which a single write(2) almost never shows under SIGKILL.
final class ChunkedFileSystem: PosixFileSystem {
    private let chunk: Int

    init(chunk: Int) { self.chunk = max(1, chunk) }

    override func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError) {
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try super.write(Array(bytes[start..<min(start + chunk, bytes.count)]), to: path, at: offset + start)
        }
    }
}
