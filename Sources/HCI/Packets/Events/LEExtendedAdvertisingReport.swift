/// LE Extended Advertising Report (LE Meta subevent 0x0D): advertisements heard by an extended scan —
/// and, from some controllers (Bumble among them), by a legacy scan too, so the host must read both.
public struct LEExtendedAdvertisingReport: Hashable, Sendable {
    public static let subeventCode: UInt8 = 0x0D
    static let maximumParameterLength = HCIEvent.maximumParameterLength - 1

    public struct Report: Hashable, Sendable, AdvertisingReportEntry {
        /// Every field but the data, from Event_Type to Data_Length.
        static let fixedLength = 24
        public static let maximumDataLength = LEExtendedAdvertisingReport.maximumParameterLength - 1 - fixedLength

        public let eventType: ExtendedAdvertisingEventType
        public let addressType: ReportedAddressType
        public let address: BDAddress
        public let primaryPHY: PHY
        public let secondaryPHY: PHY
        /// 0xFF when the advertisement carried no ADI field.
        public let advertisingSID: UInt8
        /// dBm, or 127 when not available.
        public let txPower: Int8
        /// dBm, or 127 when not available.
        public let rssi: Int8
        /// In 1.25 ms units; zero when there is no periodic advertising.
        public let periodicAdvertisingInterval: UInt16
        /// Kept raw: besides the four address types, controllers report 0xFE for an unresolved
        /// directed address, and the scanner never looks at it.
        public let directAddressType: UInt8
        public let directAddress: BDAddress
        public let data: [UInt8]

        /// More data than one event holds (229 bytes) is a programming error.
        public init(
            eventType: ExtendedAdvertisingEventType, addressType: ReportedAddressType, address: BDAddress,
            primaryPHY: PHY = .le1M, secondaryPHY: PHY = .none, advertisingSID: UInt8 = 0xFF,
            txPower: Int8 = 127, rssi: Int8, periodicAdvertisingInterval: UInt16 = 0,
            directAddressType: UInt8 = 0, directAddress: BDAddress = .zero, data: [UInt8]
        ) {
            precondition(data.count <= Self.maximumDataLength, "extended advertising data exceeds one event")
            self.eventType = eventType
            self.addressType = addressType
            self.address = address
            self.primaryPHY = primaryPHY
            self.secondaryPHY = secondaryPHY
            self.advertisingSID = advertisingSID
            self.txPower = txPower
            self.rssi = rssi
            self.periodicAdvertisingInterval = periodicAdvertisingInterval
            self.directAddressType = directAddressType
            self.directAddress = directAddress
            self.data = data
        }

        var encodedLength: Int { Self.fixedLength + data.count }

        func encode(into buffer: inout [UInt8]) {
            buffer.appendUInt16(eventType.rawValue)
            buffer.append(addressType.rawValue)
            buffer.appendAddress(address)
            buffer.append(primaryPHY.rawValue)
            buffer.append(secondaryPHY.rawValue)
            buffer.append(advertisingSID)
            buffer.appendInt8(txPower)
            buffer.appendInt8(rssi)
            buffer.appendUInt16(periodicAdvertisingInterval)
            buffer.append(directAddressType)
            buffer.appendAddress(directAddress)
            buffer.append(UInt8(data.count))
            buffer += data
        }

        init(from reader: inout ByteReader) throws(HCIDecodeError) {
            eventType = ExtendedAdvertisingEventType(rawValue: try reader.uint16())
            addressType = try reader.enumerated(ReportedAddressType.self, field: "Address_Type")
            address = try reader.address()
            primaryPHY = PHY(rawValue: try reader.uint8())
            secondaryPHY = PHY(rawValue: try reader.uint8())
            advertisingSID = try reader.uint8()
            txPower = try reader.int8()
            rssi = try reader.int8()
            periodicAdvertisingInterval = try reader.uint16()
            directAddressType = try reader.uint8()
            directAddress = try reader.address()
            let length = Int(try reader.uint8())
            data = Array(try reader.data(count: length))
        }

        public var advertisement: ReceivedAdvertisement {
            ReceivedAdvertisement(
                address: address, addressType: addressType,
                rssi: rssi == ReceivedAdvertisement.rssiNotAvailable ? nil : rssi, data: data,
                isScanResponse: eventType.isScanResponse, isDataComplete: eventType.dataStatus == .complete)
        }
    }

    public let reports: [Report]

    /// At least one report, and no more than fit in one event: anything else cannot be encoded, so
    /// passing it is a programming error.
    public init(reports: [Report]) {
        precondition(!reports.isEmpty, "an advertising report event needs at least one report")
        precondition(Self.fits(reports), "extended advertising reports exceed one event's 255 bytes")
        self.reports = reports
    }

    /// Whether `reports` fit into a single event.
    public static func fits(_ reports: [Report]) -> Bool {
        ReportList.fits(reports, limit: maximumParameterLength)
    }

    public var advertisements: [ReceivedAdvertisement] { reports.map { $0.advertisement } }

    func encodeParameters(into buffer: inout [UInt8]) { ReportList.encode(reports, into: &buffer) }

    /// Decodes the subevent parameters (after the subevent code), which the reports must use up exactly.
    init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        reports = try ReportList.decode(parameters)
    }
}
