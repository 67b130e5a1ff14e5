import Glibc
@testable import Store
import SystemIO

/// The real file system, counting the calls that matter (fsyncs, writes, whole-file reads) and able to fail
/// writes on demand. With `performsSync` false the syncs are counted but skipped, for long runs whose
/// durability is not what is being tested.
final class CountingFileSystem: FileSystem {
    private let real = PosixFileSystem()
    let performsSync: Bool
    private(set) var fileSyncs = 0
    private(set) var directorySyncs = 0
    private(set) var writes = 0
    private(set) var reads = 0
    /// When set, writes fail with this errno after writing half their bytes (a card filling up mid-write).
    var failWrites: Int32?

    init(performsSync: Bool = true) { self.performsSync = performsSync }

    var syncs: Int { fileSyncs + directorySyncs }

    func makeDirectory(_ path: String) throws(SystemError) { try real.makeDirectory(path) }
    func fileNames(in directory: String) throws(SystemError) -> [String] { try real.fileNames(in: directory) }
    func contents(of path: String) throws(SystemError) -> [UInt8] {
        reads += 1
        return try real.contents(of: path)
    }
    func createFile(_ path: String) throws(SystemError) { try real.createFile(path) }

    func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError) {
        writes += 1
        if let code = failWrites {
            try real.write(Array(bytes.prefix(bytes.count / 2)), to: path, at: offset)
            throw SystemError(call: "pwrite", path: path, code: code)
        }
        try real.write(bytes, to: path, at: offset)
    }

    func synchronizeFile(_ path: String) throws(SystemError) {
        fileSyncs += 1
        if performsSync { try real.synchronizeFile(path) }
    }

    func synchronizeDirectory(_ path: String) throws(SystemError) {
        directorySyncs += 1
        if performsSync { try real.synchronizeDirectory(path) }
    }

    func truncateFile(_ path: String, to length: Int) throws(SystemError) { try real.truncateFile(path, to: length) }
    func removeFile(_ path: String) throws(SystemError) { try real.removeFile(path) }
}
