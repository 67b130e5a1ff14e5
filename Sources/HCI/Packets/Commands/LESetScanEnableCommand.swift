/// LE Set Scan Enable (Core Vol 4 Part E 7.8.11): starts or stops legacy scanning.
///
/// GAEN scanning leaves duplicate filtering off: every sighting of a beacon is a sample of its
/// signal strength, and the exposure estimate needs them all.
public struct LESetScanEnableCommand: HCICommand {
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x000C)

    public var isEnabled: Bool
    public var filterDuplicates: Bool

    public init(isEnabled: Bool, filterDuplicates: Bool = false) {
        self.isEnabled = isEnabled
        self.filterDuplicates = filterDuplicates
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(isEnabled ? 1 : 0)
        buffer.append(filterDuplicates ? 1 : 0)
    }

    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        isEnabled = try reader.flag(field: "LE_Scan_Enable")
        filterDuplicates = try reader.flag(field: "Filter_Duplicates")
        try reader.finish()
    }
}
