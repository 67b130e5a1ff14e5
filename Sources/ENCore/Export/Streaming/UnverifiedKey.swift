/// A valid key record read from an export whose signature was not checked: for showing a file
/// (`enbeacon export decode`) and for explicitly insecure matching. The wrapper keeps the provenance
/// visible wherever the key is used; keys that count come from `VerifiedExportFile` or `VerifiedExport`.
public struct UnverifiedKey: Hashable, Sendable {
    public let key: DiagnosisKey
    public let list: ExportKeyList
}
