import Store
import SystemIO

/// The real file system, except that every write reaches the file in small pieces, one system call
/// each: a kill in the middle of a flush then leaves a torn record, as a power cut can (the card
/// persisting part of a write), which a single write(2) almost never shows under SIGKILL.
final class ChunkedFileSystem: FileSystem {
    private let real = PosixFileSystem()
    private let chunk: Int

    init(chunk: Int) { self.chunk = max(1, chunk) }

    func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError) {
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try real.write(Array(bytes[start..<min(start + chunk, bytes.count)]), to: path, at: offset + start)
        }
    }

    func makeDirectory(_ path: String) throws(SystemError) { try real.makeDirectory(path) }
    func fileNames(in directory: String) throws(SystemError) -> [String] { try real.fileNames(in: directory) }
    func contents(of path: String) throws(SystemError) -> [UInt8] { try real.contents(of: path) }
    func createFile(_ path: String) throws(SystemError) { try real.createFile(path) }
    func synchronizeFile(_ path: String) throws(SystemError) { try real.synchronizeFile(path) }
    func synchronizeDirectory(_ path: String) throws(SystemError) { try real.synchronizeDirectory(path) }
    func truncateFile(_ path: String, to length: Int) throws(SystemError) { try real.truncateFile(path, to: length) }
    func removeFile(_ path: String) throws(SystemError) { try real.removeFile(path) }
}
