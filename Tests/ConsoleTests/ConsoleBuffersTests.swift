@testable import Console
import Testing
import Agent

/// The bounded line reader of pipes and sockets, and the bounded output queue.
@Suite struct ConsoleBuffersTests {
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

    @Test func liveLinesAreDroppedBeforeAnswers() {
        var queue = OutputQueue(limit: 100, droppableLimit: 30)
        var accepted: [Bool] = []
        accepted.append(queue.append([UInt8](repeating: 1, count: 25), droppable: true))
        accepted.append(queue.append([UInt8](repeating: 2, count: 10), droppable: true))   // 35 would wait
        accepted.append(queue.append([UInt8](repeating: 3, count: 70), droppable: false))
        accepted.append(queue.append([UInt8](repeating: 4, count: 10), droppable: false))  // 95 waiting: under 100
        accepted.append(queue.append([UInt8](repeating: 5, count: 1), droppable: false))   // 105: the reader is behind
        accepted.append(queue.append([UInt8](repeating: 6, count: 1), droppable: true))
        #expect(accepted == [true, false, true, true, false, false])
        #expect(queue.count == 105)
        let first = queue.takeDropCounts(), second = queue.takeDropCounts()
        #expect(first == (lines: 2, bytes: 1))
        #expect(second == (lines: 0, bytes: 0))
    }

    @Test func oneAnswerLargerThanTheLimitGoesOutWholeToAReaderThatKeepsUp() {
        var queue = OutputQueue(limit: 100, droppableLimit: 30)
        let accepted = queue.append([UInt8](repeating: 1, count: 1000), droppable: false)
        #expect(accepted)
        #expect(queue.count == 1000)
    }

    @Test func drainingRemovesWhatWasWrittenInOrder() {
        var queue = OutputQueue(limit: 1 << 20, droppableLimit: 1 << 20)
        var written: [UInt8] = []
        for chunk in 0..<100 { queue.append([UInt8](repeating: UInt8(chunk), count: 1000), droppable: false) }
        while !queue.isEmpty {
            queue.drain { bytes in
                let count = min(bytes.count, 777)
                written += bytes.prefix(count)
                return count
            }
        }
        #expect(written.count == 100_000)
        #expect(written == (0..<100).flatMap { [UInt8](repeating: UInt8($0), count: 1000) })
    }
}
