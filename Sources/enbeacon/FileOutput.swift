#if canImport(Glibc)
import Glibc
#endif

/// Text to a file descriptor, buffered up to 64 KiB. Written with write(2) rather than stdio
/// because C's `stdout`/`stderr` globals are shared mutable state that Swift 6 rightly refuses.
final class FileOutput: TextOutputStream {
    private let fd: Int32
    private let bufferLimit: Int
    private var buffer: [UInt8] = []

    init(fd: Int32, bufferLimit: Int = 64 * 1024) {
        self.fd = fd
        self.bufferLimit = bufferLimit
    }

    func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count > bufferLimit { flush() }
    }

    func flush() {
        var offset = 0
        while offset < buffer.count {
            let n = buffer[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }  // a closed pipe: nothing sensible left to do with the text
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
