/// A valid key record read from an export whose signature was not checked: for showing a file
/// (`enbeacon export decode`) and for explicitly insecure matching. The wrapper keeps the provenance
/// visible wherever the key is used; keys that count come only from a `VerifiedExportFile`.
public struct UnverifiedKey: Hashable, Sendable {
    public let key: DiagnosisKey
    public let list: ExportKeyList
}
