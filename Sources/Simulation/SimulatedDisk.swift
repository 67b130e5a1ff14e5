import SystemIO

/// A badge's SD card in a simulation: the real file system, until the scenario fills it up. While full,
/// every write, file creation, atomic replacement and fsync fails with ENOSPC, as a full card does;
/// reading and removing still work.
package final class SimulatedDisk: PosixFileSystem {
    var isFull = false

    override init() { super.init() }

    private func refuseIfFull(_ call: String, _ path: String) throws(SystemError) {
        if isFull { throw SystemError(call: call, path: path, code: Errno.noSpace) }
    }

    override package func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(SystemError) {
        try refuseIfFull("write", path + AtomicFile.temporarySuffix)
        try super.replaceAtomically(path, with: bytes)
    }

    override package func createFile(_ path: String) throws(SystemError) {
        try refuseIfFull("open", path)
        try super.createFile(path)
    }

    override package func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError) {
        try refuseIfFull("pwrite", path)
        try super.write(bytes, to: path, at: offset)
    }

    override package func synchronizeFile(_ path: String) throws(SystemError) {
        try refuseIfFull("fdatasync", path)
        try super.synchronizeFile(path)
    }
}
