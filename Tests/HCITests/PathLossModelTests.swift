@testable import HCI
import Testing

@Suite("Path-loss model")
struct PathLossModelTests {
    @Test("the mean RSSI is the log-distance model's: −52 dBm at 10 m and 6.02 dB less per doubling, for +8 dBm")
    func meanRSSI() {
        let model = PathLossModel()
        #expect(abs(model.meanRSSI(txPower: 8, distance: 1) - -32) < 1e-12)
        #expect(abs(model.meanRSSI(txPower: 8, distance: 10) - -52) < 1e-12)
        #expect(abs(model.meanRSSI(txPower: 8, distance: 1000) - -92) < 1e-12)
        let doubling = model.meanRSSI(txPower: 8, distance: 2.5) - model.meanRSSI(txPower: 8, distance: 5)
        #expect(abs(doubling - 6.020_599_913_279_624) < 1e-12)
        // Closer than the minimum distance counts as the minimum distance: 40 dB at 1 m, 20 dB less at 0.1 m.
        #expect(abs(model.meanRSSI(txPower: 8, distance: 0.001) - -12) < 1e-12)
    }

    @Test("log10 agrees with the decimal logarithm across the range, at powers of ten, and at the edges")
    func log10() {
        // Powers of ten, and log10(a·b) = log10(a) + log10(b) over values spread from 10⁻³⁰⁰ to 10³⁰⁰.
        for power in -300...300 {
            let value = PathLossModel.log10(Double("1e\(power)")!)
            #expect(abs(value - Double(power)) <= 1e-13 * max(1, abs(Double(power))), "log10(1e\(power)) = \(value)")
        }
        let samples: [Double] = [1.000_000_1, 1.414_213_562_373_095, 1.414_213_562_373_096, 1.999_999, 2, 3, 7.5, 9.99]
        for a in samples {
            for b in samples {
                let sum = PathLossModel.log10(a) + PathLossModel.log10(b)
                #expect(abs(PathLossModel.log10(a * b) - sum) < 1e-15 * 4)
            }
        }
        #expect(abs(PathLossModel.log10(2) - 0.301_029_995_663_981_2) < 1e-16)
        #expect(abs(PathLossModel.log10(3) - 0.477_121_254_719_662_4) < 1e-16)
        #expect(PathLossModel.log10(0) == -.infinity)
        #expect(PathLossModel.log10(.infinity) == .infinity)
        #expect(PathLossModel.log10(-1).isNaN)
        #expect(PathLossModel.log10(.nan).isNaN)
        #expect(abs(PathLossModel.log10(.leastNonzeroMagnitude) - -323.306_215_343_115_2) < 1e-12)
    }
}
