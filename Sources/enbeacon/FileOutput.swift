import SystemIO

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
        // A closed pipe: nothing sensible is left to do with the text.
        buffer.withUnsafeBytes { raw in _ = try? Posix.writeAll(raw, to: fd) }
        buffer.removeAll(keepingCapacity: true)
    }
}
