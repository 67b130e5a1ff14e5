/// LE Advertising Report (LE Meta subevent 0x02): legacy advertisements a scan heard.
///
/// Reports are laid out one after another, each complete (type, address type, address, length, data,
/// RSSI), as BlueZ, Bumble and Zephyr send and parse them. Older Core versions drew the layout as
/// arrays of each field; the two agree for a single report, which is what controllers send in practice.
public struct LEAdvertisingReport: Hashable, Sendable {
    public static let subeventCode: UInt8 = 0x02
    /// Subevent parameters left after the subevent code.
    static let maximumParameterLength = HCIEvent.maximumParameterLength - 1

    public struct Report: Hashable, Sendable, AdvertisingReportEntry {
        public static let maximumDataLength = 31
        /// Every field but the data: type, address type, address, length, RSSI.
        static let fixedLength = 10

        public let eventType: LegacyAdvertisingEventType
        public let addressType: ReportedAddressType
        public let address: BDAddress
        public let data: [UInt8]
        /// dBm, or 127 when the controller could not measure it.
        public let rssi: Int8

        /// More than 31 bytes of data, or the anonymous address type (extended reports only), cannot
        /// be encoded in a legacy report: passing them is a programming error.
        public init(
            eventType: LegacyAdvertisingEventType, addressType: ReportedAddressType, address: BDAddress,
            data: [UInt8], rssi: Int8
        ) {
            precondition(data.count <= Self.maximumDataLength, "legacy advertising data exceeds 31 bytes")
            precondition(addressType != .anonymous, "legacy reports cannot carry an anonymous address")
            self.eventType = eventType
            self.addressType = addressType
            self.address = address
            self.data = data
            self.rssi = rssi
        }

        var encodedLength: Int { Self.fixedLength + data.count }

        func encode(into buffer: inout [UInt8]) {
            buffer.append(eventType.rawValue)
            buffer.append(addressType.rawValue)
            buffer.appendAddress(address)
            buffer.append(UInt8(data.count))
            buffer += data
            buffer.appendInt8(rssi)
        }

        init(from reader: inout ByteReader) throws(HCIDecodeError) {
            eventType = try reader.enumerated(LegacyAdvertisingEventType.self, field: "Event_Type")
            addressType = try reader.enumerated(ReportedAddressType.self, field: "Address_Type")
            guard addressType != .anonymous else {
                throw .invalidValue(field: "Address_Type", value: UInt64(addressType.rawValue))
            }
            address = try reader.address()
            let length = Int(try reader.uint8())
            guard length <= Self.maximumDataLength else {
                throw .invalidValue(field: "Data_Length", value: UInt64(length))
            }
            data = Array(try reader.data(count: length))
            rssi = try reader.int8()
        }

        public var advertisement: ReceivedAdvertisement {
            ReceivedAdvertisement(
                address: address, addressType: addressType,
                rssi: rssi == ReceivedAdvertisement.rssiNotAvailable ? nil : rssi, data: data,
                isScanResponse: eventType == .scanResponse, isDataComplete: true)
        }
    }

    public let reports: [Report]

    /// At least one report, and no more than fit in one event (six with full data): anything else
    /// cannot be encoded, so passing it is a programming error.
    public init(reports: [Report]) {
        precondition(!reports.isEmpty, "an advertising report event needs at least one report")
        precondition(
            Self.fits(reports), "advertising reports exceed one event's 255 bytes")
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
