import ENCore
import SystemIO

/// Lines of a file, read in 64 KiB pieces; a line longer than `maxLength` is an error, not a buffer
/// that grows with whatever the file holds.
struct LineReader {
    let file: ReadOnlyFile
    let maxLength: Int
    /// The number of the line last returned (1-based), or being read when an error is thrown.
    private(set) var lineNumber = 0
    private var offset = 0
    private var chunk: [UInt8] = []
    private var chunkPosition = 0

    struct Problem: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    init(file: ReadOnlyFile, maxLength: Int) {
        self.file = file
        self.maxLength = maxLength
    }

    mutating func next() throws(LineReader.Problem) -> (number: Int, bytes: [UInt8])? {
        var line: [UInt8] = []
        var sawAny = false
        while true {
            if chunkPosition == chunk.count {
                try refill()
                if chunk.isEmpty {
                    guard sawAny else { return nil }
                    lineNumber += 1
                    return (lineNumber, line)
                }
            }
            sawAny = true
            let rest = chunk[chunkPosition...]
            if let newline = rest.firstIndex(of: 0x0A) {
                line += chunk[chunkPosition..<newline]
                chunkPosition = newline + 1
                lineNumber += 1
                guard line.count <= maxLength else { throw LineReader.Problem("longer than \(maxLength) bytes") }
                return (lineNumber, line)
            }
            line += rest
            chunkPosition = chunk.count
            guard line.count <= maxLength else {
                lineNumber += 1
                throw LineReader.Problem("longer than \(maxLength) bytes")
            }
        }
    }

    private mutating func refill() throws(LineReader.Problem) {
        chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let n: Int
        do throws(SystemError) {
            // withUnsafeMutableBytes rethrows untyped; a Result keeps the error's type.
            n = try chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try file.read(at: offset, into: raw) }
            }.get()
        } catch {
            throw LineReader.Problem("\(error)")
        }
        chunk.removeSubrange(n...)
        offset += n
        chunkPosition = 0
    }
}
