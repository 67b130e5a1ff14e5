import ENCore
import Testing

/// BatchCollector: files of one batch are held until the batch is complete, then released in order.
@Suite struct ExportBatchTests {
    static func position(_ num: Int32, of size: Int32, start: UInt64 = 1_600_000_000, region: String = "XX") -> BatchPosition {
        BatchPosition(header: ExportHeader(startTimestamp: start, endTimestamp: start + 3600, region: region,
                                           batchNum: num, batchSize: size))!
    }

    @Test func positionsRequireValidNumbers() {
        for (num, size) in [(Int32(0), Int32(1)), (2, 1), (1, 0), (1, 1_000_001)] {
            #expect(BatchPosition(header: ExportHeader(batchNum: num, batchSize: size)) == nil)
        }
        #expect(BatchPosition(header: ExportHeader(batchNum: 1, batchSize: 1)) != nil)
    }

    @Test func singleFileBatchIsCompleteAtOnce() {
        var collector = BatchCollector<String>()
        guard case .complete(let files) = collector.add("a", at: Self.position(1, of: 1)) else {
            Issue.record("a 1-of-1 file completes its batch")
            return
        }
        #expect(files == ["a"])
        #expect(collector.incomplete.isEmpty)
    }

    @Test func filesArriveOutOfOrderAndAreReleasedInOrder() {
        var collector = BatchCollector<String>()
        guard case .waiting(received: 1, of: 3) = collector.add("third", at: Self.position(3, of: 3)) else {
            Issue.record("expected waiting 1 of 3")
            return
        }
        guard case .duplicate = collector.add("third again", at: Self.position(3, of: 3)) else {
            Issue.record("expected duplicate")
            return
        }
        guard case .waiting(received: 2, of: 3) = collector.add("first", at: Self.position(1, of: 3)) else {
            Issue.record("expected waiting 2 of 3")
            return
        }
        // A file of another batch (different window) does not fill this one.
        guard case .waiting(received: 1, of: 3) = collector.add("other", at: Self.position(2, of: 3, start: 1)) else {
            Issue.record("other batch should wait on its own")
            return
        }
        #expect(collector.incomplete.map(\.received).sorted() == [1, 2])
        guard case .complete(let files) = collector.add("second", at: Self.position(2, of: 3)) else {
            Issue.record("expected complete")
            return
        }
        #expect(files == ["first", "second", "third"])
        #expect(collector.incomplete.count == 1)
        collector.discard(collector.incomplete[0].batch)
        #expect(collector.incomplete.isEmpty)
    }

    @Test func verifiedExportsCollectByTheirOwnPosition() throws {
        let signer = ExportTestSigner()
        var collector = BatchCollector<VerifiedExportFile>()
        var outcomes: [Int] = []
        for num: Int32 in [2, 1] {
            var file = ExportTestFile(batchNum: num, batchSize: 2, keys: [.random()])
            file.region = "DE"
            let verified = try signer.keyring().verify(signer.signedArchive(file))
            switch collector.add(verified) {
            case .waiting(let received, _): outcomes.append(received)
            case .complete(let files): outcomes.append(-files.count)
                #expect(files.map(\.batch.number) == [1, 2])
            case .duplicate: Issue.record("no duplicates here")
            }
        }
        #expect(outcomes == [1, -2])
    }
}
