/// Which advertisements a scanner reports (Core Vol 4 Part E 7.8.10, Scanning_Filter_Policy).
public enum ScanFilterPolicy: UInt8, Hashable, Sendable, CaseIterable {
    case acceptAll = 0x00
    case filterAcceptListOnly = 0x01
    case acceptAllIncludingUnresolvedDirected = 0x02
    case filterAcceptListIncludingUnresolvedDirected = 0x03
}
