import Glibc
import SystemIO
import Testing
@testable import EventLoop

/// The one non-blocking writer of the console, the socket connections and the transports: its queue's
/// bounds, writing as the descriptor takes bytes, asking for writability only while bytes wait, and
/// reporting failures.
@Suite struct DescriptorWriterTests {
    // MARK: The queue

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

    // MARK: The writer on real descriptors

    /// A connected pair of unix stream sockets, both ends non-blocking.
    struct SocketPair {
        let writeEnd: Int32
        let readEnd: Int32

        init() {
            var ends: [Int32] = [-1, -1]
            precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &ends) == 0)
            writeEnd = ends[0]
            readEnd = ends[1]
        }

        func close() {
            Glibc.close(writeEnd)
            Glibc.close(readEnd)
        }
    }

    /// A megabyte into a pipe that holds 64 KiB: what the pipe takes goes at once, the rest as the reader
    /// reads, in order; once it is all out the writer stops asking for writability, so the loop, with
    /// nothing left to wait for, returns by itself.
    @Test func writesWhatThePipeTakesAndTheRestAsTheReaderReads() {
        let loop = PollLoop()
        let pipe = TestPipe()
        defer { pipe.closeReadEnd(); pipe.closeWriteEnd() }
        let writer = DescriptorWriter(loop: loop, fd: pipe.writeEnd)
        var drainedCalls = 0
        writer.onDrained = { drainedCalls += 1 }
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(writer.append(payload))
        let waitingAfterAppend = writer.waitingByteCount
        #expect(waitingAfterAppend > 0 && waitingAfterAppend < payload.count, "some written at once, the rest waits")
        #expect(drainedCalls == 0)

        var received: [UInt8] = []
        var readWatch: WatchHandle?
        readWatch = loop.watch(fd: pipe.readEnd, for: .readable) { _ in
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(pipe.readEnd, $0.baseAddress, $0.count) }
            if count > 0 { received += buffer[0..<count] }
            if received.count == payload.count { loop.unwatch(readWatch!) }
        }
        loop.run()  // returns only once neither the reader nor the writer waits for anything
        #expect(received == payload)
        #expect(writer.isEmpty)
        #expect(drainedCalls == 1)
        #expect(writer.failure == nil)
    }

    /// Ownership without weak references (the board build has none): while bytes wait, the loop holds the
    /// writer (its watch and its stall timer), and the writer holds its callbacks, which hold their owner.
    /// `stop()` lets go of all of it, so both are released.
    @Test func aStoppedWriterAndTheOwnerItsCallbacksHoldAreReleased() {
        final class Owner {
            var writer: DescriptorWriter?
            var failures = 0
        }
        let loop = PollLoop()
        let pair = SocketPair()
        defer { pair.close() }
        weak var releasedWriter: DescriptorWriter?
        weak var releasedOwner: Owner?
        do {
            let owner = Owner()
            let writer = DescriptorWriter(loop: loop, fd: pair.writeEnd, settings: .init(stallTimeout: .seconds(60)))
            writer.onFailure = { _ in owner.failures += 1 }
            writer.onDrained = { owner.writer = nil }
            owner.writer = writer
            writer.append([UInt8](repeating: 0x61, count: 4 << 20))  // far more than the socket buffers
            #expect(!writer.isEmpty, "bytes wait: a watch and a stall timer are registered")
            releasedWriter = writer
            releasedOwner = owner
            owner.writer = nil
        }
        #expect(releasedWriter != nil && releasedOwner != nil, "held by the loop while bytes wait")
        releasedWriter?.stop()
        #expect(releasedWriter == nil, "stopping unwatches, cancels the stall timer and drops the callbacks")
        #expect(releasedOwner == nil)
    }

    @Test func aReaderThatHungUpIsReportedOnceAndLaterBytesAreRefused() {
        let loop = PollLoop()
        let pair = SocketPair()
        defer { close(pair.writeEnd) }
        let writer = DescriptorWriter(loop: loop, fd: pair.writeEnd)
        var failures: [DescriptorWriter.Failure] = []
        writer.onFailure = { failures.append($0) }
        close(pair.readEnd)
        #expect(!writer.append(Array("hello\n".utf8)), "a write to a closed peer fails (EPIPE, not SIGPIPE)")
        #expect(failures == [.system(SystemError(call: "send", code: EPIPE))])
        #expect(!writer.append(Array("again\n".utf8)))
        #expect(failures.count == 1)
        #expect("\(failures[0])" == "Broken pipe")
    }

    @Test func aReaderThatTakesNothingForTheStallTimeoutIsReported() {
        let loop = PollLoop()
        let pair = SocketPair()
        defer { pair.close() }
        let writer = DescriptorWriter(loop: loop, fd: pair.writeEnd,
                                      settings: .init(stallTimeout: .milliseconds(200)))
        var failures: [DescriptorWriter.Failure] = []
        writer.onFailure = { failure in
            failures.append(failure)
            loop.stop()
        }
        let start = loop.now
        writer.append([UInt8](repeating: 0x61, count: 4 << 20))  // far more than the socket buffers
        loop.run()
        #expect(failures == [.stalled(.milliseconds(200))])
        #expect(loop.now - start >= .milliseconds(200))
        #expect(writer.isEmpty, "what waited is dropped")
    }

    @Test func droppableBytesGiveWayWhileAnswersStillQueue() {
        let loop = PollLoop()
        let pair = SocketPair()
        defer { pair.close() }
        let writer = DescriptorWriter(loop: loop, fd: pair.writeEnd,
                                      settings: .init(limit: 1 << 20, droppableLimit: 1024))
        // Fill the socket buffer so that everything after waits in the queue.
        while writer.isEmpty { writer.append([UInt8](repeating: 0x61, count: 4096)) }
        let line = [UInt8](repeating: 0x6C, count: 100)
        var accepted = 0
        for _ in 0..<50 where writer.append(line, droppable: true) { accepted += 1 }
        #expect(accepted < 50, "live lines stop being queued past the droppable limit")
        #expect(writer.append(Array("an answer\n".utf8)), "an answer still queues")
        let dropped = writer.takeDropCounts()
        #expect(dropped.lines == 50 - accepted && dropped.bytes == 0)
    }

    @Test func aHeldWriterQueuesAndWritesOnlyOnceReleased() {
        let loop = PollLoop()
        let pipe = TestPipe()
        defer { pipe.closeReadEnd(); pipe.closeWriteEnd() }
        let writer = DescriptorWriter(loop: loop, fd: pipe.writeEnd)
        writer.isHeld = true
        writer.append(Array("held".utf8))
        #expect(pipe.readAvailable().text == "")
        #expect(writer.waitingByteCount == 4)
        writer.isHeld = false
        #expect(pipe.readAvailable().text == "held")
        #expect(writer.isEmpty)
    }
}
