import Store

/// The real file system minus fsync: the baseline of `bench store`, showing what durability costs.
/// Never used by the agent.
final class UnsyncedFileSystem: FileSystem {
    private let real = PosixFileSystem()
    func makeDirectory(_ path: String) throws(FileError) { try real.makeDirectory(path) }
    func fileNames(in directory: String) throws(FileError) -> [String] { try real.fileNames(in: directory) }
    func contents(of path: String) throws(FileError) -> [UInt8] { try real.contents(of: path) }
    func createFile(_ path: String) throws(FileError) { try real.createFile(path) }
    func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(FileError) { try real.write(bytes, to: path, at: offset) }
    func synchronizeFile(_ path: String) throws(FileError) {}
    func synchronizeDirectory(_ path: String) throws(FileError) {}
    func truncateFile(_ path: String, to length: Int) throws(FileError) { try real.truncateFile(path, to: length) }
    func removeFile(_ path: String) throws(FileError) { try real.removeFile(path) }
}
