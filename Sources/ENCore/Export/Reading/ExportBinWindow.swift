/// A sliding window over export.bin as a `ZipEntryReader` produces it: the protobuf scanner asks for "at
/// least n bytes" (n up to the capacity) and consumes or discards them; every byte that enters the window
/// passes once through `digests`, so hashing sees the whole file exactly once whatever the scanner skips.
///
/// Positions are absolute offsets in export.bin, which is what error messages report.
final class ExportBinWindow {
    /// The longest field that can be decoded whole; real key records are 30-odd bytes, SignatureInfos under 100.
    static let maxWholeField = 64 * 1024
    /// Room for one whole field plus the tag and length before it.
    static let capacity = maxWholeField + 32

    let reader: ZipEntryReader
    private let digests: ExportBinDigests?
    private let storage: UnsafeMutableRawBufferPointer
    /// `storage[start..<end]` holds unconsumed bytes; `storage[0]` is byte `storageOffset` of export.bin.
    private(set) var start = 0
    private(set) var end = 0
    private(set) var storageOffset = 0
    private var sourceExhausted = false

    init(reader: ZipEntryReader, digests: ExportBinDigests?) {
        self.reader = reader
        self.digests = digests
        storage = .allocate(byteCount: Self.capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(storage) }
    var available: Int { end - start }
    /// Absolute offset of the next unconsumed byte.
    var position: Int { storageOffset + start }
    /// Bytes export.bin still holds after `position`, by its declared size.
    var remaining: Int { reader.expectedSize - position }

    /// Makes at least `count` bytes available unless export.bin ends first; true when they are.
    func fill(atLeast count: Int) throws(ExportFileError) -> Bool {
        precondition(count <= Self.capacity)
        if available >= count { return true }
        if start > 0 {
            if available > 0 {
                storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: available)
            }
            storageOffset += start
            end = available
            start = 0
        }
        while available < count, !sourceExhausted {
            let free = UnsafeMutableRawBufferPointer(rebasing: storage[end...])
            let n = try reader.read(into: free)
            if n == 0 {
                sourceExhausted = true
            } else {
                digests?.update(UnsafeRawBufferPointer(rebasing: storage[end..<(end + n)]))
                end += n
            }
        }
        return available >= count
    }

    func consume(_ count: Int) {
        precondition(count <= available)
        start += count
    }

    /// Skips `count` bytes through as many refills as it takes; false when export.bin ends first.
    func discard(_ count: Int) throws(ExportFileError) -> Bool {
        var left = count
        while left > 0 {
            if available == 0 {
                guard try fill(atLeast: 1) else { return false }
            }
            let step = min(left, available)
            start += step
            left -= step
        }
        return true
    }
}
