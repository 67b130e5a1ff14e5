// enbeacon-store-writer: the process the power-cut tests kill.
//
//   enbeacon-store-writer DIR [--batch N] [--pause-ms N] [--segment-bytes N] [--budget N] [--write-chunk N]
//
// Locks DIR, opens the sighting store there (recovering from whatever the last kill left), checks that
// it holds a contiguous run of synthetic sightings (sighting n first seen at epoch + n), prints
// `resume FIRST END DAMAGED TRUNCATED`, then forever: appends 1...N sightings continuing the run, prints
// `flushing END`, flushes, prints `flushed END` — the acknowledgement that sightings < END are durable.
// With --write-chunk, each write reaches the file N bytes per system call, so kills tear records.
// Exit 3: could not open or lock; exit 4: the store holds something it should not.
//
//   enbeacon-store-writer DIR --fill N
//
// Writes N sightings in flushes of 1,000, reads them all back, and prints `rss PEAK_KB COUNT`: the peak
// resident memory of a process that filled and iterated a store of that size.
//
//   enbeacon-store-writer DIR --plant < SIGHTINGS.jsonl
//
// Appends the sightings of stdin, one JSON object a line ({"rpi":HEX32,"aem":HEX8,"time":UNIX,"rssiMax":-45,
// "rssiMean":-50,"reports":4,"gap":300}), flushes once and prints `planted N`: the VM harness's way of giving an
// agent sightings of a key it then publishes.
import ENCore
import Simulation
import Glibc
import Store
import SystemIO

let epoch: Int64 = 1_700_000_000

func say(_ line: String) {
    // write(2), not print: stdout is a pipe, and a line stuck in a buffer at SIGKILL was never acknowledged.
    let bytes = Array((line + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if n <= 0 { if errno == EINTR { continue }; exit(5) }
        done += n
    }
}

func fail(_ status: Int32, _ message: String) -> Never {
    let bytes = Array(("enbeacon-store-writer: " + message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

/// VmHWM from /proc/self/status: the most memory this process has had resident.
func peakResidentKilobytes() -> Int? {
    let fd = open("/proc/self/status", O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while case let n = chunk.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }), n > 0 { text += chunk[..<n] }
    let line = String(decoding: text, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    return line?.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
}

var arguments = CommandLine.arguments.dropFirst()
guard let directory = arguments.popFirst() else { fail(2, "usage: enbeacon-store-writer DIR [options]") }
var options: [String: Int] = [:]
let plant = arguments.first == "--plant"
if plant { arguments.removeFirst() }
while let name = arguments.popFirst() {
    guard name.hasPrefix("--"), let value = arguments.popFirst().flatMap({ Int($0) }) else { fail(2, "bad option \(name)") }
    options[String(name.dropFirst(2))] = value
}

var settings = SightingStore.Settings()
settings.log.segmentBytes = options["segment-bytes"] ?? settings.log.segmentBytes
settings.log.byteBudget = options["budget"] ?? settings.log.byteBudget

// Held until the process ends, however it ends: the kernel releases the flock even after SIGKILL.
let lock: DataDirectoryLock
let store: SightingStore
do {
    try AtomicFile.makeDirectory(directory)
    lock = try DataDirectoryLock(directory: directory)
    let files: any FileSystem = options["write-chunk"].map { ChunkedFileSystem(chunk: $0) } ?? PosixFileSystem()
    store = try SightingStore(dataDirectory: directory, settings: settings, fileSystem: files)
} catch {
    fail(3, "\(error)")
}

if plant {
    var planted = 0
    while let line = readLine() {
        guard !line.isEmpty else { continue }
        guard case .object(let m)? = try? JSONValue.parse(line),
              case .string(let rpiHex)? = m["rpi"], let rpi = Bytes16(hex: rpiHex),
              case .string(let aemHex)? = m["aem"], let aem = AssociatedEncryptedMetadata(hex: aemHex),
              case .number(let time)? = m["time"], case .number(let rssiMax)? = m["rssiMax"],
              case .number(let rssiMean)? = m["rssiMean"], case .number(let reports)? = m["reports"],
              case .number(let gap)? = m["gap"] else { fail(2, "--plant: not a sighting: \(line)") }
        store.append(Sighting(rpi: rpi, aem: aem, firstSeen: Int64(time), rssiMax: Int8(rssiMax), rssiMean: Int8(rssiMean),
                              reports: Int(reports), secondsSincePreviousScan: Int(gap)))
        planted += 1
    }
    do { try store.flush() } catch { fail(3, "\(error)") }
    say("planted \(planted)")
    exit(0)
}

if let count = options["fill"] {
    for start in stride(from: 0, to: count, by: 1_000) {
        for number in start..<min(start + 1_000, count) {
            store.append(SyntheticSightings.sighting(number: number, firstSeen: epoch + Int64(number)))
        }
        do { try store.flush() } catch { fail(3, "\(error)") }
    }
    var read = 0
    do { try store.forEach { _ in read += 1; return .proceed } } catch { fail(3, "\(error)") }
    say("rss \(peakResidentKilobytes().map(String.init) ?? "?") \(read)")
    exit(0)
}

// What survived must be exactly a run of the synthetic sequence: budget trimming may have removed its
// beginning, nothing may be missing, repeated or altered after that.
var first: Int?
var end = 0
do {
    try store.forEach { sighting in
        let number = Int(sighting.firstSeen - epoch)
        if first == nil { first = number; end = number }
        guard number == end, sighting == SyntheticSightings.sighting(number: number, firstSeen: sighting.firstSeen) else {
            fail(4, "expected sighting \(end), found \(number) (or altered content)")
        }
        end += 1
        return .proceed
    }
} catch {
    fail(3, "\(error)")
}
say("resume \(first ?? 0) \(end) \(store.recovery.damagedRecords) \(store.recovery.truncatedBytes)")

let batch = max(1, options["batch"] ?? 20)
let pause = UInt32(max(0, options["pause-ms"] ?? 2)) * 1_000
while true {
    for _ in 0..<Int.random(in: 1...batch) {
        store.append(SyntheticSightings.sighting(number: end, firstSeen: epoch + Int64(end)))
        end += 1
    }
    say("flushing \(end)")
    do { try store.flush() } catch { fail(3, "\(error)") }
    say("flushed \(end)")
    usleep(pause)
}
