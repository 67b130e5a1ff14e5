/// What a virtual controller is, as opposed to what a host has told it: identity, capabilities, timing.
///
/// None of this is touched by Reset or a power cycle.
public struct VirtualControllerConfiguration: Hashable, Sendable {
    /// The answer to Read BD_ADDR, and the advertising address when a host picks a public own address.
    public var publicAddress: BDAddress
    /// The answer to LE Read Advertising Physical Channel Tx Power, dBm; also what the radio
    /// transmits at. +8 dBm is a typical USB dongle or SBC module.
    public var txPower: Int8
    /// The answer to Read Local Version Information. The default claims Core 5.2 (0x0B) and the
    /// company identifier 0xFFFF, which the SIG reserves for testing.
    public var version: LocalVersionReturn
    /// The answer to LE Read Local Supported Features. The default has no extended advertising, so a
    /// host keeps to the legacy commands this controller implements.
    public var leFeatures: LEFeatures
    /// The answer to LE Read Buffer Size.
    public var leBufferSize: LEBufferSizeReturn
    /// How long the controller takes to execute a command and answer it. Zero still answers on a
    /// later turn of the loop, never inside the host's `send`.
    public var commandLatency: Duration
    public var reportStyle: VirtualReportStyle

    public init(
        publicAddress: BDAddress,
        txPower: Int8 = 8,
        version: LocalVersionReturn = LocalVersionReturn(
            hciVersion: 0x0B, hciRevision: 0x0001, lmpVersion: 0x0B, manufacturer: 0xFFFF, lmpSubversion: 0x0001),
        leFeatures: LEFeatures = [.encryption],
        leBufferSize: LEBufferSizeReturn = LEBufferSizeReturn(aclDataPacketLength: 251, totalACLDataPackets: 8),
        commandLatency: Duration = .zero,
        reportStyle: VirtualReportStyle = .legacy
    ) {
        self.publicAddress = publicAddress
        self.txPower = txPower
        self.version = version
        self.leFeatures = leFeatures
        self.leBufferSize = leBufferSize
        self.commandLatency = commandLatency
        self.reportStyle = reportStyle
    }
}
