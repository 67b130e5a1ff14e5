/// How strong an advertisement arrives: a log-distance path-loss model with noise and a sensitivity floor.
///
/// `RSSI = txPower − (referenceLoss + 10·n·log10(d)) + noise`. With the defaults (40 dB at 1 m, the
/// free-space loss at 2.4 GHz, and n = 2) a +8 dBm badge reads about −32 dBm at 1 m and −52 dBm at
/// 10 m, which is the range phones report. Real rooms are worse (n of 2.5–3.5 indoors, body
/// shadowing); simulations that care can raise `exponent` or the noise.
public struct PathLossModel: Hashable, Sendable {
    /// Loss at one metre, dB.
    public var referenceLoss: Double
    /// The path-loss exponent n: 2 in free space, more indoors.
    public var exponent: Double
    /// Standard deviation of the noise added to every reading, dB; zero makes readings exact.
    public var noiseStandardDeviation: Double
    /// The weakest signal a scanner decodes, dBm; anything weaker is not heard at all.
    public var sensitivity: Double
    /// Distances below this count as this: two devices in one pocket do not have infinite signal.
    public var minimumDistance: Double

    public init(
        referenceLoss: Double = 40, exponent: Double = 2, noiseStandardDeviation: Double = 2,
        sensitivity: Double = -100, minimumDistance: Double = 0.1
    ) {
        self.referenceLoss = referenceLoss
        self.exponent = exponent
        self.noiseStandardDeviation = noiseStandardDeviation
        self.sensitivity = sensitivity
        self.minimumDistance = minimumDistance
    }

    /// The noiseless RSSI at `distance` metres from a transmitter at `txPower` dBm.
    public func meanRSSI(txPower: Int8, distance: Double) -> Double {
        let d = max(distance, minimumDistance)
        return Double(txPower) - (referenceLoss + 10 * exponent * Self.log10(d))
    }

    /// One reading: the mean plus `standardNormal` standard deviations of noise, rounded to whole dBm
    /// as controllers report it; nil when it falls below the sensitivity floor. Readings stay within
    /// the −127…+20 dBm an HCI report can carry (127 is reserved for "not available").
    public func rssi(txPower: Int8, distance: Double, standardNormal: Double) -> Int8? {
        let reading = meanRSSI(txPower: txPower, distance: distance) + noiseStandardDeviation * standardNormal
        guard reading >= sensitivity else { return nil }
        return Int8(min(20, max(-127, reading.rounded())))
    }

    /// log10 for the model, in Swift: with the C maths library linked for this alone, the board agent held
    /// 250 kB (aarch64) to 680 kB (x86-64) more of libm resident. x = m·2ᵉ with m in [√½, √2), so
    /// ln x = e·ln 2 + ln m, and ln m = 2·atanh(z) with z = (m − 1)/(m + 1), |z| ≤ 0.1716, whose series
    /// z + z³/3 + z⁵/5 + … is below an ulp after twelve terms.
    static func log10(_ x: Double) -> Double {
        guard x.isFinite, x > 0 else { return x == 0 ? -.infinity : x > 0 ? x : .nan }
        var exponent = Double(x.exponent)
        var m = x.significand
        if m > 1.414_213_562_373_095_1 {
            m /= 2
            exponent += 1
        }
        let z = (m - 1) / (m + 1)
        let z2 = z * z
        var power = z
        var series = 0.0
        for k in stride(from: 1, through: 23, by: 2) {  // integers: a Double stride steps with fma, libm's too
            series += power / Double(k)
            power *= z2
        }
        return (exponent * 0.693_147_180_559_945_3 + 2 * series) / 2.302_585_092_994_045_7
    }
}
