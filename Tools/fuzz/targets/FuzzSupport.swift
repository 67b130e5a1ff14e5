// Shared by every fuzz target (compiled into each binary by Tools/fuzz/run): the invariant check, the seed
// writer, and a generator driven by the input, so that a run is reproducible from the input alone.
#if canImport(Glibc)
import Glibc
#endif

/// Stops the run when a property of the code under test does not hold. libFuzzer sees the abort as a crash
/// and saves the input; the message says which property broke.
@inline(__always)
func invariant(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { invariantBroken(message(), file: file, line: line) }
}

@inline(never)
func invariantBroken(_ message: String, file: StaticString, line: UInt) -> Never {
    printError("invariant broken (\(file):\(line)): \(message)")
    abort()
}

/// One line on stderr, unbuffered: the process may abort right after.
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// One seed input: a file name (what it is) and its bytes.
struct Seed {
    var name: String
    var bytes: [UInt8]

    init(_ name: String, _ bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    init(_ name: String, text: String) {
        self.init(name, Array(text.utf8))
    }
}

/// The input as an array: the targets' code works on arrays and slices like the code they exercise.
func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// A small deterministic generator seeded from the input's bytes (SplitMix64 over an FNV-1a hash), for the
/// choices a target makes about an input (where to cut it, which limit to use) without consuming any of it.
struct InputRandom {
    private var state: UInt64

    /// Seeded from the length and at most 64 bytes spread over the input: cheap for long inputs, and still
    /// different for inputs that differ anywhere a mutation is likely to land.
    init(_ bytes: [UInt8]) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        let step = max(1, bytes.count / 64)
        var index = 0
        while index < bytes.count {
            hash = (hash ^ UInt64(bytes[index])) &* 0x0000_0100_0000_01B3
            index += step
        }
        state = hash
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// libFuzzer calls this once before the first input. With ENBEACON_FUZZ_WRITE_SEEDS=DIR the binary writes its
/// seed corpus (`fuzzSeeds()`, made with the project's own encoders) into DIR and exits: `Tools/fuzz/run
/// --write-seeds`.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>?,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard let directory = getenv("ENBEACON_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else {
        fuzzSetUp()
        return 0
    }
    for seed in fuzzSeeds() {
        let path = directory + "/" + seed.name
        guard let file = fopen(path, "wb") else {
            printError("cannot create \(path)")
            exit(1)
        }
        let written = seed.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == seed.bytes.count, fclose(file) == 0 else {
            printError("cannot write \(path)")
            exit(1)
        }
    }
    exit(0)
}
