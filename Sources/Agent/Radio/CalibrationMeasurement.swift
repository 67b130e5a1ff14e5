import AgentBase
import HCI

/// `radio calibrate`'s arithmetic: the RSSIs heard from a reference beacon 1 m away, and the correction that
/// makes this badge read what a calibrated receiver reads there.
///
/// Receivers turn a signal into an attenuation as `TX power − (RSSI + correction)`: the sender's TX power from
/// its metadata, the receiver's own correction (Google's per-model `rssi_correction`). A reference whose RSSI at
/// 1 m on a calibrated receiver is known (an iBeacon's or Eddystone's "measured power", or a calibrated phone's)
/// fixes the correction: `known RSSI at 1 m − median RSSI measured`. The median, not the mean: a few reports
/// bounced off a wall or shadowed by a hand must not move the figure.
package struct CalibrationMeasurement: Sendable {
    /// Fewer reports than this say too little: a minute of a phone's advertising gives hundreds.
    static let minimumSamples = 10
    /// A second source whose median lies within this many dB of the strongest's could be the reference as
    /// well: the measurement is refused rather than guessed.
    static let ambiguityMarginDB = 6.0
    /// Sources kept, and reports kept per source: a crowded room cannot grow the measurement without bound.
    static let maximumSources = 64
    static let maximumSamplesPerSource = 4_096

    /// The RSSI a calibrated receiver reads 1 m from the reference, dBm.
    package let referenceRSSIAt1m: Int
    /// Only reports from this address count, when given; else the strongest source is the reference.
    package let address: BDAddress?
    /// The RSSIs heard, by sender address, in arrival order.
    package private(set) var samples: [BDAddress: [Int8]] = [:]

    package init(referenceRSSIAt1m: Int, address: BDAddress? = nil) {
        self.referenceRSSIAt1m = referenceRSSIAt1m
        self.address = address
    }

    /// One report heard; one without an RSSI, or from another address than the one asked for, says nothing.
    package mutating func add(rssi: Int8?, from sender: BDAddress) {
        guard let rssi, address == nil || address == sender else { return }
        guard samples[sender] != nil || samples.count < Self.maximumSources else { return }
        guard samples[sender, default: []].count < Self.maximumSamplesPerSource else { return }
        samples[sender, default: []].append(rssi)
    }

    /// The correction, or why the samples do not give one.
    package func outcome() -> Result<Calibration, CalibrationRefusal> {
        let sources = samples.map { (address: $0.key, statistics: RSSIStatistics($0.value)) }
            .sorted { $0.statistics.median > $1.statistics.median }
        guard let strongest = sources.first else { return .failure(.nothingHeard(address: address)) }
        guard strongest.statistics.count >= Self.minimumSamples else {
            return .failure(.tooFewSamples(count: strongest.statistics.count, needed: Self.minimumSamples))
        }
        if let rival = sources.dropFirst().first(where: { $0.statistics.count >= Self.minimumSamples }),
           strongest.statistics.median - rival.statistics.median < Self.ambiguityMarginDB {
            return .failure(.ambiguous(strongest: strongest.address, strongestMedian: strongest.statistics.median,
                                       rival: rival.address, rivalMedian: rival.statistics.median))
        }
        let correction = Int((Double(referenceRSSIAt1m) - strongest.statistics.median).rounded())
        guard RSSICorrection.range.contains(correction) else {
            return .failure(.outOfRange(correction: correction, median: strongest.statistics.median))
        }
        return .success(Calibration(address: strongest.address, statistics: strongest.statistics, correction: correction))
    }
}

/// What `radio calibrate` found: the reference, its RSSIs summarised, and the correction they give.
package struct Calibration: Equatable, Sendable {
    package var address: BDAddress
    package var statistics: RSSIStatistics
    /// dB to add to every RSSI this badge measures (`radio.rssi_correction`).
    package var correction: Int
}

/// Why `radio calibrate` gives no correction; each says what to do instead.
package enum CalibrationRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case nothingHeard(address: BDAddress?)
    case tooFewSamples(count: Int, needed: Int)
    case ambiguous(strongest: BDAddress, strongestMedian: Double, rival: BDAddress, rivalMedian: Double)
    case outOfRange(correction: Int, median: Double)

    package var description: String {
        switch self {
        case .nothingHeard(let address?):
            "nothing heard from \(address): is the reference advertising, and is that its address now (it changes every 10-20 min)?"
        case .nothingHeard(nil):
            "no Exposure Notification beacon heard: is the reference 1 m away and advertising?"
        case .tooFewSamples(let count, let needed):
            "only \(count) reports from the strongest source (\(needed) needed): measure for longer"
        case .ambiguous(let strongest, let a, let rival, let b):
            "two sources of similar strength: \(strongest) (median \(RSSIStatistics.dB(a))) and \(rival) "
                + "(median \(RSSIStatistics.dB(b))); take the other one away, or name the reference with --address"
        case .outOfRange(let correction, let median):
            "the correction would be \(correction) dB (median \(RSSIStatistics.dB(median))), outside "
                + "\(RSSICorrection.range.lowerBound) to \(RSSICorrection.range.upperBound): check the distance, "
                + "what stands between, and the RSSI at 1 m given"
        }
    }
}
