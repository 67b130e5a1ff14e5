/// Why an export read through `ExportFile` was refused: everything `ExportError` says about the content,
/// plus what reading piecewise from a source adds. One line each, printed as the verdict of the commands.
public enum ExportFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case export(ExportError)
    /// The source failed or ended before the bytes its own directory promised.
    case read(String)
    /// Starts neither like a zip archive nor with export.bin's header.
    case unrecognized
    /// A bare export.bin beyond the size limit (a zip's entry is refused as `ZipError.entryTooLarge`).
    case tooLarge(bytes: Int, limit: Int)
    /// A field that must be decoded whole (a key record, a SignatureInfo, the region) is longer than the
    /// streaming window. Real ones are tens of bytes; only a crafted file gets here.
    case fieldTooLarge(field: UInt32, offset: Int, length: Int, limit: Int)
    /// An unknown group (no export schema has one) that does not fit in the streaming window.
    case groupTooLarge(field: UInt32, offset: Int, limit: Int)
    /// export.bin hashed differently while its keys were read than when its signature was checked:
    /// the file changed in between, and nothing read from it may be used.
    case changedSinceVerification

    public var description: String {
        switch self {
        case .export(let error): error.description
        case .read(let reason): "cannot read the export: \(reason)"
        case .unrecognized: "neither a zip archive nor an export.bin (no \"EK Export v1\" header)"
        case .tooLarge(let bytes, let limit): "export.bin is \(bytes) bytes, more than the \(limit) allowed"
        case .fieldTooLarge(let field, let offset, let length, let limit):
            "export.bin field \(field) at byte \(offset) is \(length) bytes, more than the \(limit) a record may take"
        case .groupTooLarge(let field, let offset, let limit):
            "export.bin group \(field) at byte \(offset) is longer than the \(limit) bytes a field may take"
        case .changedSinceVerification:
            "export.bin changed after its signature was checked; nothing read from it is used"
        }
    }
}

extension WireFormatError {
    /// The same error with its offset moved by `delta`: decoders report positions in the buffer they were
    /// given, the streaming reader's buffer is a window, and the user wants the position in export.bin.
    func shifted(by delta: Int) -> WireFormatError {
        switch self {
        case .truncated(let offset): .truncated(offset: offset + delta)
        case .varintTooLong(let offset): .varintTooLong(offset: offset + delta)
        case .lengthOutOfBounds(let offset, let length, let available):
            .lengthOutOfBounds(offset: offset + delta, length: length, available: available)
        case .invalidFieldNumber(let offset): .invalidFieldNumber(offset: offset + delta)
        case .invalidWireType(let offset, let raw): .invalidWireType(offset: offset + delta, rawValue: raw)
        case .wrongWireType(let message, let field, let found, let offset):
            .wrongWireType(message: message, field: field, found: found, offset: offset + delta)
        case .unmatchedEndGroup(let offset): .unmatchedEndGroup(offset: offset + delta)
        case .groupsTooDeep(let offset): .groupsTooDeep(offset: offset + delta)
        }
    }
}

extension ExportFileError {
    static func zip(_ error: ZipError) -> ExportFileError { .export(.zip(error)) }

    static func malformedExportBin(_ error: WireFormatError) -> ExportFileError {
        .export(.malformed(file: ExportFile.exportBinName, error))
    }
}
