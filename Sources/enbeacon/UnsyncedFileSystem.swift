import Store
import SystemIO

/// The real file system minus fsync: the baseline of `bench store`, showing what durability costs.
/// Never used by the agent.
final class UnsyncedFileSystem: FileSystem {
    private let real = PosixFileSystem()
    func makeDirectory(_ path: String) throws(SystemError) { try real.makeDirectory(path) }
    func fileNames(in directory: String) throws(SystemError) -> [String] { try real.fileNames(in: directory) }
    func contents(of path: String) throws(SystemError) -> [UInt8] { try real.contents(of: path) }
    func createFile(_ path: String) throws(SystemError) { try real.createFile(path) }
    func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError) { try real.write(bytes, to: path, at: offset) }
    func synchronizeFile(_ path: String) throws(SystemError) {}
    func synchronizeDirectory(_ path: String) throws(SystemError) {}
    func truncateFile(_ path: String, to length: Int) throws(SystemError) { try real.truncateFile(path, to: length) }
    func removeFile(_ path: String) throws(SystemError) { try real.removeFile(path) }
}
