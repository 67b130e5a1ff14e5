import EventLoop

/// One (address, data) pair a virtual controller started putting on the air, and when.
///
/// The controller appends one whenever the pair it broadcasts changes while advertising is enabled,
/// which is exactly what GAEN's privacy rule is about: one RPI must never be seen under two addresses,
/// nor one address with two RPIs. Grouping the history by address and by data checks both.
public struct AdvertisingHistoryEntry: Hashable, Sendable, CustomStringConvertible {
    public var time: MonotonicInstant
    /// The address in the advertising PDUs: the random address, or the public one if the host chose
    /// a public own-address type.
    public var address: BDAddress
    public var data: [UInt8]

    public init(time: MonotonicInstant, address: BDAddress, data: [UInt8]) {
        self.time = time
        self.address = address
        self.data = data
    }

    public var description: String { "\(time) \(address) \(data.count) byte(s)" }
}
