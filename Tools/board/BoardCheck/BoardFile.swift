import CBoardLibc

/// Whole small files (the vectors, the manifest, a PEM) read through stdio: Embedded Swift has no
/// Foundation and no Glibc overlay.
enum BoardFile {
    static func bytes(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return ferror(file) == 0 ? bytes : nil
    }

    static func text(_ path: String) -> String? {
        bytes(path).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
