import Glibc
import Testing
import SystemIO
import TestSupport

/// Files named in configuration are read only when they are regular files of a sane size, and a wrong
/// path is refused at once, saying why, instead of blocking the loop.
@Suite struct TextFileTests {
    @Test func aRegularFileIsReadWhole() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/risk.json"
        try AtomicFile.write(Array("{\"a\":1}\n".utf8), to: path)
        #expect(try TextFile.contents(of: path) == "{\"a\":1}\n")
        #expect(TextFile.read(path) == "{\"a\":1}\n")
    }

    /// Before, `open` of a FIFO nobody writes never returned: the whole agent froze.
    @Test func aFIFOIsRefusedAtOnceWithoutWaitingForAWriter() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        #expect { try TextFile.contents(of: path) } throws: { "\($0)" == "cannot read \(path): is a FIFO, not a regular file" }
        #expect { try TextFile.check(path) } throws: { ($0 as? TextFileError)?.reason == "is a FIFO, not a regular file" }
    }

    @Test func devicesAndDirectoriesAreRefused() throws {
        let dir = TemporaryDirectory()
        #expect { try TextFile.contents(of: "/dev/zero") } throws: { "\($0)" == "cannot read /dev/zero: is a character device, not a regular file" }
        #expect { try TextFile.contents(of: dir.path) } throws: { ($0 as? TextFileError)?.reason == "is a directory, not a regular file" }
    }

    @Test func aFileOverTheLimitIsRefusedNotCutShort() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/big.pem"
        try AtomicFile.write([UInt8](repeating: 0x41, count: 70_000), to: path)
        #expect { try TextFile.contents(of: path, limit: 65_536) } throws: {
            "\($0)" == "cannot read \(path): is 70000 bytes, more than the 65536 allowed"
        }
        #expect(try TextFile.contents(of: path, limit: 70_000).count == 70_000)
    }

    @Test func aMissingFileSaysSo() {
        #expect { try TextFile.contents(of: "/nonexistent/enbeacon.conf") } throws: { error in
            guard let error = error as? TextFileError else { return false }
            return error.isMissing && "\(error)" == "cannot read /nonexistent/enbeacon.conf: No such file or directory"
        }
    }
}
