/// Which address the controller puts in our own advertising and scan packets.
///
/// The two resolvable cases make the controller generate a resolvable private address from its
/// resolving list; enbeacon never uses them (GAEN needs a non-resolvable address), but a decoder
/// must still accept them because the specification does.
public enum OwnAddressType: UInt8, Hashable, Sendable, CaseIterable {
    case `public` = 0x00
    case random = 0x01
    case resolvableOrPublic = 0x02
    case resolvableOrRandom = 0x03
}
