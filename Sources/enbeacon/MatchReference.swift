import ENCore
#if canImport(Glibc)
import Glibc
#endif

/// `bench match --reference`: Tools/bench/match-reference.c, compiled with `cc` at run time and loaded into
/// this process, so its key schedule and matcher run on the same thread as the Swift ones, slice by slice, on
/// the same clock. Only gcc (any `cc`) and libssl-dev are needed, as for the rest of the build.
final class MatchReference {
    typealias Setup = @convention(c) (Int64) -> Int32
    typealias KeySchedule = @convention(c) (UnsafeRawPointer?, Int) -> UInt64
    typealias MakeIndex = @convention(c) (UnsafePointer<UInt8>?, UnsafePointer<UInt32>?, Int, Int64) -> UnsafeMutableRawPointer?
    typealias FreeIndex = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias Match = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, Int) -> Int

    /// The reference's `Key`: the TEK, then its rolling start and period as uint32.
    static let keyStride = 24

    static let sourcePath = "Tools/bench/match-reference.c"
    static let compilerFlags = ["-O2", "-shared", "-fPIC"]

    /// The source file that was built.
    let source: String
    private let handle: UnsafeMutableRawPointer
    /// `count` keys laid out by `layOut` through the key schedule alone (144 RPIs each): the XOR of the first
    /// eight bytes of each key's last RPI (in this machine's byte order), as the Swift loop folds them.
    let keySchedule: KeySchedule
    private let makeIndex: MakeIndex
    private let freeIndex: FreeIndex
    /// `count` keys laid out by `layOut` through the matcher over an index: how many of them matched.
    let match: Match

    /// Builds and loads the reference; the error says what is missing.
    init(now: Int64) throws(CommandFailure) {
        guard let source = Self.findSource() else {
            throw CommandFailure("--reference: \(Self.sourcePath) not found here or above the executable (run from a checkout)")
        }
        self.source = source
        var template = Array((Self.temporaryDirectory() + "/enbeacon-reference-XXXXXX").utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
            throw CommandFailure("--reference: cannot make a temporary directory: \(String(cString: strerror(errno)))")
        }
        let library = dir + "/match-reference.so"
        // The library is mapped once loaded: its file and directory can go at once, whatever happens next.
        defer {
            unlink(library)
            rmdir(dir)
        }
        let status = Self.run(["cc"] + Self.compilerFlags + ["-o", library, source, "-lcrypto"])
        guard status == 0 else {
            throw CommandFailure("--reference: cc -O2 -shared -fPIC \(source) -lcrypto failed (\(status < 0 ? "cc not found" : "status \(status)"))")
        }
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            throw CommandFailure("--reference: cannot load it: \(dlerror().map { String(cString: $0) } ?? "?")")
        }
        self.handle = handle
        func symbol<T>(_ name: String, as type: T.Type) throws(CommandFailure) -> T {
            guard let address = dlsym(handle, name) else { throw CommandFailure("--reference: \(source) has no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        let setup = try symbol("enb_reference_setup", as: Setup.self)
        keySchedule = try symbol("enb_reference_key_schedule", as: KeySchedule.self)
        makeIndex = try symbol("enb_reference_index", as: MakeIndex.self)
        freeIndex = try symbol("enb_reference_index_free", as: FreeIndex.self)
        match = try symbol("enb_reference_match", as: Match.self)
        guard setup(now) == 1 else { throw CommandFailure("--reference: its libcrypto set-up failed") }
    }

    deinit { dlclose(handle) }

    /// The reference's own index of `rpis` seen in `intervals`, freed with `free(index:)`.
    func index(rpis: [Bytes16], intervals: [UInt32], toleranceIntervals: Int64) -> UnsafeMutableRawPointer? {
        rpis.withUnsafeBytes { raw in
            intervals.withUnsafeBufferPointer { seen in
                makeIndex(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), seen.baseAddress, intervals.count, toleranceIntervals)
            }
        }
    }

    func free(index: UnsafeMutableRawPointer?) { freeIndex(index) }

    /// `keys` as the reference reads them, into `buffer` (`keyStride` bytes each).
    static func layOut(_ keys: [DiagnosisKey], into buffer: inout [UInt8]) {
        buffer = [UInt8](repeating: 0, count: keys.count * keyStride)
        buffer.withUnsafeMutableBytes { raw in
            for (i, key) in keys.enumerated() {
                let at = i * keyStride
                key.tek.keyData.withUnsafeBytes { raw.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: 16) }
                raw.storeBytes(of: key.tek.rollingStart.value, toByteOffset: at + 16, as: UInt32.self)
                raw.storeBytes(of: key.tek.rollingPeriod, toByteOffset: at + 20, as: UInt32.self)
            }
        }
    }

    /// The source under the current directory, or under a directory above the executable (which SwiftPM puts
    /// under .build in the checkout).
    private static func findSource() -> String? {
        if access(sourcePath, R_OK) == 0 { return sourcePath }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        var dir = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while let slash = dir.lastIndex(of: "/"), slash != dir.startIndex {
            dir = String(dir[..<slash])
            let candidate = dir + "/" + sourcePath
            if access(candidate, R_OK) == 0 { return candidate }
        }
        return nil
    }

    private static func temporaryDirectory() -> String {
        if let tmp = getenv("TMPDIR"), tmp.pointee != 0 { return String(cString: tmp) }
        return "/tmp"
    }

    /// Runs `arguments` (the first found on PATH) with this process's stdout and stderr: its exit status, or
    /// -1 when it could not be started.
    private static func run(_ arguments: [String]) -> Int32 {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { Glibc.free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], nil, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED / WEXITSTATUS, which Glibc's module does not export as functions.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
