/// Any command packet decoded into its type: what the virtual controller switches on.
public enum DecodedCommand: Hashable, Sendable {
    case reset(ResetCommand)
    case setEventMask(SetEventMaskCommand)
    case readLocalVersionInformation(ReadLocalVersionInformationCommand)
    case readBDAddr(ReadBDAddrCommand)
    case leSetEventMask(LESetEventMaskCommand)
    case leReadBufferSize(LEReadBufferSizeCommand)
    case leReadLocalSupportedFeatures(LEReadLocalSupportedFeaturesCommand)
    case leSetRandomAddress(LESetRandomAddressCommand)
    case leSetAdvertisingParameters(LESetAdvertisingParametersCommand)
    case leReadAdvertisingPhysicalChannelTxPower(LEReadAdvertisingPhysicalChannelTxPowerCommand)
    case leSetAdvertisingData(LESetAdvertisingDataCommand)
    case leSetAdvertisingEnable(LESetAdvertisingEnableCommand)
    case leSetScanParameters(LESetScanParametersCommand)
    case leSetScanEnable(LESetScanEnableCommand)
    case unknown(UnknownCommand)

    /// Picks the type by opcode; throws only when a known opcode's parameters are malformed.
    public init(_ packet: HCICommandPacket) throws(HCIDecodeError) {
        let parameters = packet.parameters[...]
        switch packet.opcode {
        case ResetCommand.opcode: self = .reset(try ResetCommand(parameters: parameters))
        case SetEventMaskCommand.opcode: self = .setEventMask(try SetEventMaskCommand(parameters: parameters))
        case ReadLocalVersionInformationCommand.opcode:
            self = .readLocalVersionInformation(try ReadLocalVersionInformationCommand(parameters: parameters))
        case ReadBDAddrCommand.opcode: self = .readBDAddr(try ReadBDAddrCommand(parameters: parameters))
        case LESetEventMaskCommand.opcode: self = .leSetEventMask(try LESetEventMaskCommand(parameters: parameters))
        case LEReadBufferSizeCommand.opcode: self = .leReadBufferSize(try LEReadBufferSizeCommand(parameters: parameters))
        case LEReadLocalSupportedFeaturesCommand.opcode:
            self = .leReadLocalSupportedFeatures(try LEReadLocalSupportedFeaturesCommand(parameters: parameters))
        case LESetRandomAddressCommand.opcode:
            self = .leSetRandomAddress(try LESetRandomAddressCommand(parameters: parameters))
        case LESetAdvertisingParametersCommand.opcode:
            self = .leSetAdvertisingParameters(try LESetAdvertisingParametersCommand(parameters: parameters))
        case LEReadAdvertisingPhysicalChannelTxPowerCommand.opcode:
            self = .leReadAdvertisingPhysicalChannelTxPower(
                try LEReadAdvertisingPhysicalChannelTxPowerCommand(parameters: parameters))
        case LESetAdvertisingDataCommand.opcode:
            self = .leSetAdvertisingData(try LESetAdvertisingDataCommand(parameters: parameters))
        case LESetAdvertisingEnableCommand.opcode:
            self = .leSetAdvertisingEnable(try LESetAdvertisingEnableCommand(parameters: parameters))
        case LESetScanParametersCommand.opcode:
            self = .leSetScanParameters(try LESetScanParametersCommand(parameters: parameters))
        case LESetScanEnableCommand.opcode: self = .leSetScanEnable(try LESetScanEnableCommand(parameters: parameters))
        default: self = .unknown(UnknownCommand(opcode: packet.opcode, parameters: packet.parameters))
        }
    }

    public var opcode: Opcode { packet.opcode }

    /// The packet this command encodes to.
    public var packet: HCICommandPacket {
        switch self {
        case .reset(let command): command.packet
        case .setEventMask(let command): command.packet
        case .readLocalVersionInformation(let command): command.packet
        case .readBDAddr(let command): command.packet
        case .leSetEventMask(let command): command.packet
        case .leReadBufferSize(let command): command.packet
        case .leReadLocalSupportedFeatures(let command): command.packet
        case .leSetRandomAddress(let command): command.packet
        case .leSetAdvertisingParameters(let command): command.packet
        case .leReadAdvertisingPhysicalChannelTxPower(let command): command.packet
        case .leSetAdvertisingData(let command): command.packet
        case .leSetAdvertisingEnable(let command): command.packet
        case .leSetScanParameters(let command): command.packet
        case .leSetScanEnable(let command): command.packet
        case .unknown(let command): command.packet
        }
    }
}
