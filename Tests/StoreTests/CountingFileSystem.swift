import Glibc
@testable import Store
import SystemIO

/// The real file system, counting the calls that matter (fsyncs, writes, whole-file reads) and able to fail
/// writes on demand. With `performsSync` false the syncs are counted but skipped, for long runs whose
/// durability is not what is being tested.
final class CountingFileSystem: PosixFileSystem {
    let performsSync: Bool
    private(set) var fileSyncs = 0
    private(set) var directorySyncs = 0
    private(set) var writes = 0
    private(set) var reads = 0
    /// When set, writes fail with this errno after writing half their bytes (a card filling up mid-write).
    var failWrites: Int32?

    init(performsSync: Bool = true) {
        self.performsSync = performsSync
        super.init()
    }

    var syncs: Int { fileSyncs + directorySyncs }

    override func contents(of path: String) throws(SystemError) -> [UInt8] {
        reads += 1
        return try super.contents(of: path)
    }

    override func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError) {
        writes += 1
        if let code = failWrites {
            try super.write(Array(bytes.prefix(bytes.count / 2)), to: path, at: offset)
            throw SystemError(call: "pwrite", path: path, code: code)
        }
        try super.write(bytes, to: path, at: offset)
    }

    override func synchronizeFile(_ path: String) throws(SystemError) {
        fileSyncs += 1
        if performsSync { try super.synchronizeFile(path) }
    }

    override func synchronizeDirectory(_ path: String) throws(SystemError) {
        directorySyncs += 1
        if performsSync { try super.synchronizeDirectory(path) }
    }
}
