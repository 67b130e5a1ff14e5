import CLinux

/// A shared library mapped with dlopen(3) for as long as this object lives: libcurl while transfers run,
/// the benchmark's C reference. Its symbols are looked up by name; the caller casts each to its C type.
public final class DynamicLibrary {
    private let handle: UnsafeMutableRawPointer

    /// Maps `path` (a file, or a soname the dynamic linker searches for) with every symbol bound now, so a
    /// missing one fails here rather than at its first call. The error carries the linker's own words.
    public init(_ path: String) throws(LoadFailure) {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw LoadFailure(reason: dlerror().map { String(cString: $0) } ?? "not found")
        }
        self.handle = handle
    }

    deinit { dlclose(handle) }

    /// The address of `name`, nil when the library has no such symbol.
    public func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(handle, name) }

    /// Whether a library of that name is mapped into this process now (it maps nothing new to find out).
    public static func isLoaded(_ path: String) -> Bool {
        guard let probe = dlopen(path, RTLD_NOW | RTLD_NOLOAD) else { return false }
        dlclose(probe)
        return true
    }

    /// Why dlopen refused, in the dynamic linker's words.
    public struct LoadFailure: Error, Hashable, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }
}
