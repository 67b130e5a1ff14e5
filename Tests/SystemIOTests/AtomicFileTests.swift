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
}
