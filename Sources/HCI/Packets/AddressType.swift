/// Whether a device address is the public (IEEE-assigned) one or a random one, as commands name a peer.
public enum AddressType: UInt8, Hashable, Sendable, CaseIterable {
    case `public` = 0x00
    case random = 0x01
}
