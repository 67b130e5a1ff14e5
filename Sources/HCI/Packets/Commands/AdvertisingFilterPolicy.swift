/// Which scan and connection requests an advertiser answers (the filter accept list decides or not).
public enum AdvertisingFilterPolicy: UInt8, Hashable, Sendable, CaseIterable {
    case acceptAll = 0x00
    case filterScanRequests = 0x01
    case filterConnectionRequests = 0x02
    case filterBoth = 0x03
}
