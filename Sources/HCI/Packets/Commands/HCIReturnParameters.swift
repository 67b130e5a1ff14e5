/// The return parameters a Command Complete event carries for one kind of command.
///
/// Every kind starts with a status. When the status is a failure a controller may send only that
/// byte, so a host should read `CommandComplete.status` first and decode the full parameters only on
/// success; the decoders here insist on the complete layout.
public protocol HCIReturnParameters: Hashable, Sendable {
    var status: HCIStatus { get }

    /// Appends the return parameters, status first.
    func encode(into buffer: inout [UInt8])

    /// Decodes exactly one set of return parameters, rejecting missing or extra bytes.
    init(returnParameters: ArraySlice<UInt8>) throws(HCIDecodeError)
}
