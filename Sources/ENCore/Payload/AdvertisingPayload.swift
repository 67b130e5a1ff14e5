/// The GAEN advertising payload: the 0xFD6F service UUID and 20 bytes of service data (RPI ‖ AEM).
///
/// Encoded as the 31-byte legacy advertising data phones send (Flags, UUID list, service data).
/// The decoder accepts what real phones send — with or without Flags (Android often omits them),
/// structures in any order — and rejects everything else with a `PayloadError` naming the fault,
/// so the scanner can count non-GAEN and malformed reports instead of storing them.
public struct AdvertisingPayload: Hashable, Sendable {
    public static let serviceUUID: UInt16 = 0xFD6F
    public static let maxLength = 31
    static let flagsType: UInt8 = 0x01
    static let incompleteUUID16Type: UInt8 = 0x02
    static let completeUUID16Type: UInt8 = 0x03
    static let serviceData16Type: UInt8 = 0x16
    /// LE General Discoverable, BR/EDR not supported, plus the simultaneous LE/BR-EDR bits phones set.
    static let flagsValue: UInt8 = 0x1A

    public var rpi: Bytes16
    public var aem: AssociatedEncryptedMetadata

    public init(rpi: Bytes16, aem: AssociatedEncryptedMetadata) {
        self.rpi = rpi
        self.aem = aem
    }

    /// The advertising data, 31 bytes with Flags, 28 without.
    public func encoded(includingFlags: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.maxLength)
        if includingFlags { out += [0x02, Self.flagsType, Self.flagsValue] }
        out += [0x03, Self.completeUUID16Type, 0x6F, 0xFD]
        out += [0x17, Self.serviceData16Type, 0x6F, 0xFD]
        out += rpi.bytes
        out += aem.bytes
        return out
    }

    public init<C: RandomAccessCollection>(decoding data: C) throws(PayloadError) where C.Element == UInt8, C.Index == Int {
        guard !data.isEmpty else { throw .empty }
        guard data.count <= Self.maxLength else { throw .tooLong(data.count) }
        var sawFlags = false
        var sawUUIDList = false
        var serviceData: (Bytes16, AssociatedEncryptedMetadata)?
        var i = data.startIndex
        while i < data.endIndex {
            let offset = i - data.startIndex
            let length = Int(data[i])
            guard length > 0 else { throw .zeroLengthStructure(offset: offset) }
            guard data.endIndex - (i + 1) >= length else {
                throw .truncatedStructure(offset: offset, declared: length, available: data.endIndex - (i + 1))
            }
            let type = data[i + 1]
            let value = data[(i + 2)..<(i + 1 + length)]
            switch type {
            case Self.flagsType:
                guard !sawFlags else { throw .duplicateStructure(type: type) }
                guard value.count == 1 else { throw .badFlagsLength(value.count) }
                sawFlags = true
            case Self.completeUUID16Type, Self.incompleteUUID16Type:
                guard !sawUUIDList else { throw .duplicateStructure(type: type) }
                guard value.count == 2 else { throw .badUUIDListLength(value.count) }
                let uuid = UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8
                guard uuid == Self.serviceUUID else { throw .wrongServiceUUID(uuid) }
                sawUUIDList = true
            case Self.serviceData16Type:
                guard serviceData == nil else { throw .duplicateStructure(type: type) }
                guard value.count >= 2 else { throw .badServiceDataLength(value.count) }
                let uuid = UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8
                guard uuid == Self.serviceUUID else { throw .wrongServiceUUID(uuid) }
                guard value.count == 22 else { throw .badServiceDataLength(value.count - 2) }
                let body = value.dropFirst(2)
                serviceData = (Bytes16(body.prefix(16))!, AssociatedEncryptedMetadata(body.suffix(4))!)
            default:
                throw .unexpectedStructure(type: type)
            }
            i += 1 + length
        }
        guard let (rpi, aem) = serviceData else { throw .missingServiceData }
        guard sawUUIDList else { throw .missingServiceUUIDList }
        self.init(rpi: rpi, aem: aem)
    }
}

/// Why advertising data is not a GAEN payload. Offsets and lengths refer to the advertising data.
public enum PayloadError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(Int)
    case zeroLengthStructure(offset: Int)
    case truncatedStructure(offset: Int, declared: Int, available: Int)
    case duplicateStructure(type: UInt8)
    case badFlagsLength(Int)
    case badUUIDListLength(Int)
    case wrongServiceUUID(UInt16)
    /// Service data for 0xFD6F must carry exactly 20 bytes (RPI 16 + AEM 4).
    case badServiceDataLength(Int)
    case unexpectedStructure(type: UInt8)
    case missingServiceData
    case missingServiceUUIDList

    public var description: String {
        switch self {
        case .empty: "empty advertising data"
        case .tooLong(let n): "advertising data of \(n) bytes exceeds 31"
        case .zeroLengthStructure(let o): "zero-length AD structure at offset \(o)"
        case .truncatedStructure(let o, let d, let a): "AD structure at offset \(o) declares \(d) bytes but \(a) remain"
        case .duplicateStructure(let t): "AD type 0x\(Hex.encode([t])) appears twice"
        case .badFlagsLength(let n): "Flags structure holds \(n) bytes, expected 1"
        case .badUUIDListLength(let n): "16-bit UUID list holds \(n) bytes, expected 2"
        case .wrongServiceUUID(let u): "service UUID 0x\(Hex.encode([UInt8(u >> 8), UInt8(u & 0xFF)])) is not 0xfd6f"
        case .badServiceDataLength(let n): "0xfd6f service data holds \(n) bytes, expected 20"
        case .unexpectedStructure(let t): "unexpected AD type 0x\(Hex.encode([t]))"
        case .missingServiceData: "no 0xfd6f service data"
        case .missingServiceUUIDList: "service data without the 0xfd6f UUID list"
        }
    }
}
