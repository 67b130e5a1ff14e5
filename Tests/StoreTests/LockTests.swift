import Glibc
import Testing
import TestSupport
@testable import Store
import SystemIO

@Suite struct LockTests {
    @Test func aSecondOpenOfTheSameDirectoryIsRefusedNamingTheHolder() throws {
        let dir = TemporaryDirectory()
        let lock = try DataDirectoryLock(directory: dir.path)
        let refusal = DataDirectoryLockError.inUse(directory: dir.path, pid: getpid())
        #expect(throws: refusal) { try DataDirectoryLock(directory: dir.path) }
        #expect(refusal.description == "data directory \(dir.path) is in use by another enbeacon (pid \(getpid())); "
                    + "stop it or use another data directory")
        #expect(TemporaryDirectory.mode(of: lock.path) == 0o600)
        lock.release()
        let again = try DataDirectoryLock(directory: dir.path)
        again.release()
    }

    @Test func theLockGoesWithItsOwner() throws {
        let dir = TemporaryDirectory()
        do { _ = try DataDirectoryLock(directory: dir.path) }
        _ = try DataDirectoryLock(directory: dir.path)
    }

    @Test func aMissingDirectoryIsAFileError() {
        #expect(throws: DataDirectoryLockError.file(SystemError(call: "open", path: "/nonexistent-enbeacon/lock", code: ENOENT))) {
            try DataDirectoryLock(directory: "/nonexistent-enbeacon")
        }
    }
}
