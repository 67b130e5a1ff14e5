import SystemIO

extension TextFileError {
    /// `PATH: reason`, the way every command names a file it could not read, after the option that named it.
    var brief: String { "\(path): \(reason)" }
}
