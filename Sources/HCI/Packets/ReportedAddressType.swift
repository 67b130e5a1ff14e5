/// The kind of advertiser address in an advertising report.
///
/// The identity cases appear when the controller resolved a private address through its resolving
/// list; `anonymous` only in extended reports, for advertisements sent without any address.
public enum ReportedAddressType: UInt8, Hashable, Sendable, CaseIterable {
    case `public` = 0x00
    case random = 0x01
    case publicIdentity = 0x02
    case randomIdentity = 0x03
    case anonymous = 0xFF
}
