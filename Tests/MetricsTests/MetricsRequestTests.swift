import Testing
@testable import Metrics

/// Every shape of request head a scraper, a browser or an attacker sends, decided without a socket.
@Suite struct MetricsRequestTests {
    func request(_ text: String) -> MetricsRequest { MetricsRequest(head: ArraySlice(Array(text.utf8))) }

    @Test func onlyGetAndHeadOfMetricsAreServed() {
        #expect(request("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n") == .metrics(head: false))
        #expect(request("HEAD /metrics HTTP/1.0\r\n\r\n") == .metrics(head: true))
        #expect(request("GET /metrics?name[]=up HTTP/1.1\r\n\r\n") == .metrics(head: false), "a query changes nothing")
        #expect(request("GET / HTTP/1.1\r\n\r\n") == .notFound)
        #expect(request("GET /metricsx HTTP/1.1\r\n\r\n") == .notFound)
        #expect(request("POST /metrics HTTP/1.1\r\n\r\n") == .methodNotAllowed)
    }

    @Test func malformedRequestLinesAreBadRequests() {
        for line in ["GET /metrics\r\n\r\n", "GET  /metrics HTTP/1.1\r\n\r\n", "GET /metrics HTTP/2.0\r\n\r\n",
                     "GET /metrics HTTP/1.10\r\n\r\n", "GET /me\u{1}trics HTTP/1.1\r\n\r\n", "\r\n\r\n",
                     "GET /metrics HTTP/1.1 extra\r\n\r\n", "\u{FF}\u{FE} / HTTP/1.1\r\n\r\n"] {
            #expect(request(line) == .badRequest, "\(Array(line.utf8))")
        }
    }

    @Test func theHeadEndsAtTheFirstBlankLine() {
        #expect(MetricsRequest.headEnd(in: Array("GET / HTTP/1.1\r\nA: b\r\n".utf8)) == nil)
        #expect(MetricsRequest.headEnd(in: Array("GET / HTTP/1.1\r\n\r\nbody".utf8)) == 18)
        #expect(MetricsRequest.headEnd(in: Array("GET / HTTP/1.1\n\nbody".utf8)) == 16)
    }
}
