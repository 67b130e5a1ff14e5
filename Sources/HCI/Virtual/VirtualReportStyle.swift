/// How a virtual controller reports the advertisements its legacy scan hears.
public enum VirtualReportStyle: Hashable, Sendable {
    /// What the Core specification asks for: one LE Advertising Report (subevent 0x02) per
    /// advertisement, with the legacy event type of the PDU (ADV_NONCONN_IND for a GAEN beacon).
    /// Sent only when the LE subevent mask has `advertisingReport`.
    case legacy
    /// What Bumble 0.0.236 sends instead: LE Extended Advertising Reports (subevent 0x0D) with event
    /// type 0x0001 whatever the PDU was, each advertisement reported twice (the second time as a
    /// scan response, event type 0x0008), PHYs 1M/1M, SID 0, TX power 0. A host that only reads
    /// legacy reports, or counts every report as a sighting, shows its mistake here. Unlike Bumble,
    /// event masks are still honoured: these need `extendedAdvertisingReport` in the LE mask.
    case extendedLikeBumble
}
