/// Whether the scanner only listens (passive) or also sends scan requests (active).
///
/// GAEN scanning is passive: a beacon carries everything in its advertising data, and an active scan
/// would reveal our own address to every phone around.
public enum ScanType: UInt8, Hashable, Sendable, CaseIterable {
    case passive = 0x00
    case active = 0x01
}
