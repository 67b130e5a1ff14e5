import Testing
@testable import Metrics

@Suite struct PrometheusTextTests {
    @Test func familiesHaveOneHelpAndTypeAndEscapedLabels() {
        var p = PrometheusText()
        p.family("x_total", .counter, "a back\\slash\nand a line", 3)
        p.family("y", .gauge, "labelled", [([("a", "q\"uote"), ("b", "line\nfeed\\")], 0.25), ([("a", "2")], -1)])
        p.family("absent", .gauge, "not known yet", nil)
        #expect(p.text == """
            # HELP x_total a back\\\\slash\\nand a line
            # TYPE x_total counter
            x_total 3
            # HELP y labelled
            # TYPE y gauge
            y{a="q\\"uote",b="line\\nfeed\\\\"} 0.25
            y{a="2"} -1

            """)
    }

    @Test func numbersReadAsPrometheusParsesThem() {
        #expect(PrometheusText.number(0) == "0")
        #expect(PrometheusText.number(1_700_000_000) == "1700000000")
        #expect(PrometheusText.number(0.5) == "0.5")
        #expect(PrometheusText.number(.nan) == "NaN")
        #expect(PrometheusText.number(.infinity) == "+Inf")
        #expect(PrometheusText.number(-.infinity) == "-Inf")
    }
}
