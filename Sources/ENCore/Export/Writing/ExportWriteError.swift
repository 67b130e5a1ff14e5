/// Why an export could not be written. One line each, like `ExportError`.
public enum ExportWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No signer: an unsigned export would be refused by every verifier.
    case noSigners
    case tooManySigners(count: Int, limit: Int)
    /// `1 ≤ batch_num ≤ batch_size ≤ 1,000,000` does not hold.
    case batchOutOfRange(batchNum: Int32, batchSize: Int32)
    /// The n-th key added (0-based) breaks a rule every reader would drop it for.
    case invalidKey(index: Int, reason: String)
    /// export.bin would pass 4 GiB, beyond what a zip without ZIP64 can describe (and beyond any real export).
    case tooLarge(bytes: Int)
    /// `add` or `finish` after `finish`.
    case finished
    case libcrypto(String)
    case zlib(String)
    /// The output could not take the bytes (a full disk, a closed file).
    case output(String)

    public var description: String {
        switch self {
        case .noSigners: "an export needs at least one signing key"
        case .tooManySigners(let count, let limit): "\(count) signing keys, more than the \(limit) allowed"
        case .batchOutOfRange(let num, let size):
            "batch \(num) of \(size) is invalid: 1 <= batch_num <= batch_size <= 1,000,000 is required"
        case .invalidKey(let index, let reason): "key \(index) cannot be exported: \(reason)"
        case .tooLarge(let bytes): "export.bin would reach \(bytes) bytes, more than a zip without ZIP64 holds"
        case .finished: "the export is already finished"
        case .libcrypto(let reason): "libcrypto failed: \(reason)"
        case .zlib(let reason): "zlib failed: \(reason)"
        case .output(let reason): "cannot write the export: \(reason)"
        }
    }
}
