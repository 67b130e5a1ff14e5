import ENCore
import SystemIO

/// `bench match --reference`: Tools/bench/match-reference.c, compiled at run time with the C compiler that `CC`
/// names (default `cc`) and loaded into this process, so its key schedule and matcher run on the same thread as
/// the Swift ones, slice by slice, on the same clock. Only gcc (any `cc`) and libssl-dev are needed, as for the
/// rest of the build. `CC` matters where this process is not of the machine's own CPU (the board agent under
/// qemu-user): the host's `cc` would build a library it cannot load, `CC="aarch64-linux-gnu-gcc -I… -L…"` one
/// for its CPU.
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
    /// The compiler that built it, with the flags `CC` gave it.
    let compiler: [String]
    private let library: DynamicLibrary
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
        let dir: String
        do { dir = try Posix.makeTemporaryDirectory(Self.temporaryDirectory() + "/enbeacon-reference-") } catch {
            throw CommandFailure("--reference: cannot make a temporary directory: \(error.reason)")
        }
        let libraryPath = dir + "/match-reference.so"
        // The library is mapped once loaded: its file and directory can go at once, whatever happens next.
        defer {
            Posix.removeName(libraryPath)
            Posix.removeDirectory(dir)
        }
        let compiler = Self.compiler()
        self.compiler = compiler
        let arguments = compiler + Self.compilerFlags + ["-o", libraryPath, source, "-lcrypto"]
        let status = Posix.run(arguments)
        guard status == 0 else {
            let command = (compiler + Self.compilerFlags + [source, "-lcrypto"]).joined(separator: " ")
            throw CommandFailure("--reference: \(command) failed (\(status < 0 ? "\(compiler[0]) not found" : "status \(status)"))")
        }
        let library: DynamicLibrary
        do { library = try DynamicLibrary(libraryPath) } catch {
            throw CommandFailure("--reference: cannot load it: \(error.reason)")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(CommandFailure) -> T {
            guard let address = library.symbol(name) else { throw CommandFailure("--reference: \(source) has no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        let setup = try symbol("enb_reference_setup", as: Setup.self)
        keySchedule = try symbol("enb_reference_key_schedule", as: KeySchedule.self)
        makeIndex = try symbol("enb_reference_index", as: MakeIndex.self)
        freeIndex = try symbol("enb_reference_index_free", as: FreeIndex.self)
        match = try symbol("enb_reference_match", as: Match.self)
        guard setup(now) == 1 else { throw CommandFailure("--reference: its libcrypto set-up failed") }
        self.library = library
    }

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

    /// The C compiler: `CC` split at blanks as the shell splits an unquoted `$CC` (a command and its flags; no
    /// quoting), or `cc` when `CC` is unset or blank.
    static func compiler(_ value: String? = Posix.environment("CC")) -> [String] {
        let words = (value ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map { String($0) }
        return words.isEmpty ? ["cc"] : words
    }

    /// The source under the current directory, or under a directory above the executable (which SwiftPM puts
    /// under .build in the checkout).
    private static func findSource() -> String? {
        if Posix.isReadable(sourcePath) { return sourcePath }
        guard var dir = Posix.executablePath else { return nil }
        while let slash = dir.lastIndex(of: "/"), slash != dir.startIndex {
            dir = String(dir[..<slash])
            let candidate = dir + "/" + sourcePath
            if Posix.isReadable(candidate) { return candidate }
        }
        return nil
    }

    private static func temporaryDirectory() -> String {
        guard let tmp = Posix.environment("TMPDIR"), !tmp.isEmpty else { return "/tmp" }
        return tmp
    }
}
