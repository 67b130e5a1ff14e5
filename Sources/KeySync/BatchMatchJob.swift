import ENCore
import EventLoop

/// Feeds the keys of one complete export batch to the run's `ExposureDetection`, in loop slices of
/// `keysPerSlice` keys, so the radio and the console keep running while millions of keys go by.
///
/// Keys stream out of each file's resumable iterator, read 64 KiB at a time from the downloaded file, and
/// only matches are kept: memory is the detection's index and hits, whatever the files hold. Each file is
/// a transaction of the detection: one that turns out corrupt past its header (or changed on disk since it
/// was verified) contributes nothing, even keys already read from it.
final class BatchMatchJob {
    /// One file of the batch, and the name the log gives it.
    struct File {
        var export: VerifiedExportFile
        var name: String
    }

    struct Outcome {
        /// One line per file dropped as corrupt.
        var corruptFiles: [String] = []
        var slices = 0
        var elapsed: Duration = .zero
    }

    private let files: [File]
    private let detection: ExposureDetection
    private let loop: any EventLoop
    private var fileIndex = 0
    private var iterator: ExportKeyIterator?
    private var outcome = Outcome()
    private var job: SlicedJob?

    init(files: [File], detection: ExposureDetection, loop: any EventLoop) {
        self.files = files
        self.detection = detection
        self.loop = loop
    }

    func start(keysPerSlice: Int, completion: @escaping (Outcome) -> Void) {
        let started = loop.now
        job = SlicedJob.start(on: loop, budget: .iterations(max(1, keysPerSlice)), step: { [unowned self] in
            self.step()
        }, onFinished: { [unowned self] in
            self.outcome.slices = self.job?.slices ?? 0
            self.outcome.elapsed = self.loop.now - started
            self.job = nil
            completion(self.outcome)
        })
    }

    /// Stops; a file half read is taken back.
    func cancel() {
        job?.cancel()
        job = nil
        if iterator != nil { detection.abandonFile() }
        iterator = nil
    }

    /// One key, or the move to the next file.
    private func step() -> SliceResult {
        do {
            if iterator == nil {
                guard fileIndex < files.count else { return .done }
                detection.beginFile(files[fileIndex].name)
                iterator = try files[fileIndex].export.makeKeyIterator()
            }
            if let next = try iterator?.next() {
                detection.consider(next.key)
            } else {
                detection.endFile()
                nextFile()
            }
        } catch {
            detection.abandonFile()
            let file = files[fileIndex]
            outcome.corruptFiles.append("\(file.name) (file \(file.export.batch.number) of \(file.export.batch.batch)): \(error)")
            nextFile()
        }
        return .more
    }

    private func nextFile() {
        iterator = nil
        fileIndex += 1
    }
}
