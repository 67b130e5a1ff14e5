import Foundation
import Testing
import SystemIO
import TestSupport

@Suite struct AtomicFileTests {
    @Test func writesAndReplacesPrivately() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/state"
        try AtomicFile.write(Array("one".utf8), to: path)
        try AtomicFile.write(Array("two".utf8), to: path)
        #expect(TextFile.read(path) == "two")
        #expect(TemporaryDirectory.mode(of: path) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        try AtomicFile.write([], to: path, mode: 0o640)
        #expect(TemporaryDirectory.mode(of: path) == 0o640)
        #expect(throws: SystemError.self) { try AtomicFile.write([1], to: dir.path + "/missing/state") }
    }

    @Test func makesNestedDirectoriesAndTightensExistingOnes() throws {
        let dir = TemporaryDirectory()
        try AtomicFile.makeDirectory(dir.path + "/a/b/c")
        #expect(TemporaryDirectory.mode(of: dir.path + "/a/b/c") == 0o700)
        try FileManager.default.createDirectory(atPath: dir.path + "/open", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        try AtomicFile.makeDirectory(dir.path + "/open")
        #expect(TemporaryDirectory.mode(of: dir.path + "/open") == 0o700)
        #expect(throws: SystemError.self) { try AtomicFile.makeDirectory("/proc/enbeacon-cannot") }
    }

    @Test func aFailedWriteLeavesNoTemporaryAndLeftoversAreRemovedAtStart() throws {
        let dir = TemporaryDirectory()
        // A directory where the file should be: the rename fails, after the temporary was written.
        try FileManager.default.createDirectory(atPath: dir.path + "/keys", withIntermediateDirectories: false)
        #expect(throws: SystemError.self) { try AtomicFile.write(Array("k".utf8), to: dir.path + "/keys") }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/keys.tmp"))
        // What a power cut between write and rename leaves, and what is not ours to touch.
        for name in ["exposures.tmp", "keysync.tmp", "notes.txt", ".tmp"] {
            _ = FileManager.default.createFile(atPath: dir.path + "/" + name, contents: Data("x".utf8))
        }
        #expect(AtomicFile.removeTemporaries(in: dir.path).sorted() == ["exposures.tmp", "keysync.tmp"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [".tmp", "keys", "notes.txt"])
    }
}
