import EventLoop

/// The strict controller's rules: how each command changes the state and what it is answered.
///
/// Error codes are the ones the Core specification (Vol 4 Part E 7.8) names for each situation, so
/// a host that passes against these rules also passes against silicon that enforces them.
extension VirtualControllerState {
    /// Applies `command` at `now` and returns its Command Complete (Num_HCI_Command_Packets = 1).
    /// A rejected command changes nothing.
    mutating func execute(
        _ command: DecodedCommand, at now: MonotonicInstant, configuration: VirtualControllerConfiguration
    ) -> CommandComplete {
        switch command {
        case .reset:
            self = VirtualControllerState()
            return .status(.success, for: command.opcode)

        case .setEventMask(let set):
            eventMask = set.mask
            return .status(.success, for: command.opcode)

        case .readLocalVersionInformation:
            return CommandComplete(answering: ReadLocalVersionInformationCommand.self, with: configuration.version)

        case .readBDAddr:
            return CommandComplete(
                answering: ReadBDAddrCommand.self, with: BDAddrReturn(address: configuration.publicAddress))

        case .leSetEventMask(let set):
            leEventMask = set.mask
            return .status(.success, for: command.opcode)

        case .leReadBufferSize:
            return CommandComplete(answering: LEReadBufferSizeCommand.self, with: configuration.leBufferSize)

        case .leReadLocalSupportedFeatures:
            return CommandComplete(
                answering: LEReadLocalSupportedFeaturesCommand.self,
                with: LESupportedFeaturesReturn(features: configuration.leFeatures))

        case .leReadAdvertisingPhysicalChannelTxPower:
            return CommandComplete(
                answering: LEReadAdvertisingPhysicalChannelTxPowerCommand.self,
                with: AdvertisingTxPowerReturn(txPower: configuration.txPower))

        case .leSetRandomAddress(let set):
            // 7.8.4: not while legacy advertising or scanning is enabled. This is the rule that forces
            // a GAEN host to stop both before rotating its address.
            guard !isAdvertising, !isScanning else { return .status(.commandDisallowed, for: command.opcode) }
            randomAddress = set.address
            return .status(.success, for: command.opcode)

        case .leSetAdvertisingParameters(let parameters):
            // 7.8.5: not while advertising. Interval range and order were checked by the decoder,
            // which turns them into Invalid Parameters like any other malformed field.
            guard !isAdvertising else { return .status(.commandDisallowed, for: command.opcode) }
            advertisingParameters = parameters
            return .status(.success, for: command.opcode)

        case .leSetAdvertisingData(let set):
            // Allowed while advertising: the next advertising event carries the new data.
            advertisingData = set.data
            return .status(.success, for: command.opcode)

        case .leSetAdvertisingEnable(let enable):
            // 7.8.9: a random own address that was never set is Invalid Parameters.
            if enable.isEnabled,
                ownAddress(for: advertisingParameters.ownAddressType, publicAddress: configuration.publicAddress) == nil
            {
                return .status(.invalidParameters, for: command.opcode)
            }
            isAdvertising = enable.isEnabled
            return .status(.success, for: command.opcode)

        case .leSetScanParameters(let parameters):
            // 7.8.10: not while scanning.
            guard !isScanning else { return .status(.commandDisallowed, for: command.opcode) }
            scanParameters = parameters
            return .status(.success, for: command.opcode)

        case .leSetScanEnable(let enable):
            // 7.8.11: only an active scan sends packets from our address, so only it needs one.
            if enable.isEnabled, scanParameters.type == .active,
                ownAddress(for: scanParameters.ownAddressType, publicAddress: configuration.publicAddress) == nil
            {
                return .status(.invalidParameters, for: command.opcode)
            }
            if enable.isEnabled {
                if !isScanning { scanStartedAt = now }
                // Enabling again restarts duplicate filtering, as controllers do.
                reportedAdvertisers.removeAll()
                filtersDuplicates = enable.filterDuplicates
            }
            isScanning = enable.isEnabled
            return .status(.success, for: command.opcode)

        case .unknown:
            return .status(.unknownCommand, for: command.opcode)
        }
    }
}

extension CommandComplete {
    /// A Command Complete carrying only a status: every set command's answer, and what a controller
    /// sends for any command it rejects, whatever that command would otherwise return.
    static func status(_ status: HCIStatus, for opcode: Opcode) -> CommandComplete {
        CommandComplete(numCommandPackets: 1, opcode: opcode, returnParameters: [status.rawValue])
    }
}
