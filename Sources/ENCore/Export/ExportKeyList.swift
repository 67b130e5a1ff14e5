/// The two repeated key fields of an export: first releases, and later revisions of keys
/// already released (a changed report type, or a revocation).
public enum ExportKeyList: Hashable, Sendable {
    case keys
    case revisedKeys
}
