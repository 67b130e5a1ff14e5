/// One advertisement as the scanner needs it, whichever kind of report carried it.
///
/// Legacy and extended reports differ in layout and in what else they say; the scanner only wants
/// who sent what at which signal strength, plus the two facts that decide whether to keep it.
public struct ReceivedAdvertisement: Hashable, Sendable {
    public var address: BDAddress
    public var addressType: ReportedAddressType
    /// dBm; nil when the controller reported 127, "not available".
    public var rssi: Int8?
    public var data: [UInt8]
    /// A scan response rather than the advertisement itself (Bumble reports every legacy
    /// advertisement a second time as one, so a scanner may want to skip these).
    public var isScanResponse: Bool
    /// False when the controller truncated the data or more fragments follow.
    public var isDataComplete: Bool

    /// The RSSI value the specification reserves for "not available".
    public static let rssiNotAvailable: Int8 = 127

    public init(
        address: BDAddress, addressType: ReportedAddressType, rssi: Int8?, data: [UInt8],
        isScanResponse: Bool = false, isDataComplete: Bool = true
    ) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.data = data
        self.isScanResponse = isScanResponse
        self.isDataComplete = isDataComplete
    }
}
