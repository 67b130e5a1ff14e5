import Glibc

/// A non-blocking pipe for loop tests; the test writes one end and the loop watches the other.
struct TestPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe failed")
        readEnd = ends[0]
        writeEnd = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "short write to test pipe")
    }

    /// Everything currently readable, and whether end of file was reached.
    func readAvailable() -> (text: String, endOfFile: Bool) {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count > 0 { collected += buffer[0..<count]; continue }
            return (String(decoding: collected, as: UTF8.self), count == 0)
        }
    }

    func closeReadEnd() { close(readEnd) }
    func closeWriteEnd() { close(writeEnd) }
}
