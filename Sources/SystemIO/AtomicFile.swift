import CLinux

/// Small state written so that a power cut leaves either the old or the new file, never a mix:
/// write a temporary file, fsync it, rename it over the old one, fsync the directory.
public enum AtomicFile {
    public static let temporarySuffix = ".tmp"

    /// `durable: false` keeps the atomic replacement but leaves out both fsyncs, for a file rewritten every few
    /// seconds whose loss in a power cut costs nothing (the metrics textfile): an SD card is spared the writes.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, durable: Bool = true) throws(SystemError) {
        let file = try AtomicFileWriter(path: path, mode: mode)
        try file.write(bytes, at: 0)
        try file.commit(durable: durable)
    }

    /// Creates `path` (and missing parents) with `mode`, and tightens an existing directory to it.
    /// Each directory created is made durable in its parent, so a power cut cannot undo it after the
    /// files inside have been fsync'd.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            let parent = prefix.isEmpty ? "." : prefix
            prefix += part
            if mkdir(prefix, mode) == 0 {
                try Posix.synchronizeDirectory(parent)
            } else if errno != EEXIST {
                throw .last("mkdir", prefix)
            }
            prefix += "/"
        }
        // mkdir's mode is filtered by the umask too; the data directory must be 0700 whatever it is.
        guard chmod(path, mode) == 0 else { throw .last("chmod", path) }
    }

    /// Removes the temporary files an interrupted `write` left in `directory` (a power cut between the
    /// write and the rename); returns their names.
    @discardableResult
    public static func removeTemporaries(in directory: String) -> [String] {
        let names = (try? Posix.fileNames(in: directory)) ?? []
        return names.filter { name in
            name.hasSuffix(temporarySuffix) && name.count > temporarySuffix.count && unlink(directory + "/" + name) == 0
        }
    }
}
