import SystemIO

extension SightingStore {
    /// Opens the store on the kernel's file system: what the agent and the tools use. Kept apart from the
    /// store itself so that a build without POSIX (Tools/build-mcu, the store on a microcontroller's flash)
    /// compiles the store's files but this one.
    public convenience init(dataDirectory: String, settings: Settings = Settings()) throws(SystemError) {
        try self.init(dataDirectory: dataDirectory, settings: settings, fileSystem: PosixFileSystem())
    }
}
