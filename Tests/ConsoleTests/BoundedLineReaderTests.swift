@testable import Console
import Testing
@testable import Agent

/// The bounded line reader of pipes and sockets (the output side is `DescriptorWriter`, in EventLoop).
@Suite struct BoundedLineReaderTests {
    @Test func linesEndAtLFWithAnOptionalCR() {
        var reader = BoundedLineReader(maxLineBytes: 16)
        #expect(reader.feed(Array("one\ntwo\r\nthr".utf8)) == [.line("one"), .line("two")])
        #expect(reader.feed(Array("ee\n\n".utf8)) == [.line("three"), .line("")])
        #expect(reader.feed(Array("last".utf8)) == [])
        #expect(reader.finish() == .line("last"))
        #expect(reader.finish() == nil)
    }

    @Test func anOverLongLineIsReportedAtOnceAndSkippedToItsEnd() {
        var reader = BoundedLineReader(maxLineBytes: 4)
        #expect(reader.feed(Array("1234".utf8)) == [])
        #expect(reader.feed(Array("5".utf8)) == [.tooLong])
        for _ in 0..<1000 { #expect(reader.feed([UInt8](repeating: 0x41, count: 10_000)) == []) }
        #expect(reader.feed(Array("\nok\n".utf8)) == [.line("ok")])
        #expect(reader.feed(Array("123456".utf8)) == [.tooLong])
        #expect(reader.finish() == nil)
    }
}
