import ENCore
import EventLoop

/// Feeds the keys of one complete export batch (or the keys held until their embargo ended) to the run's
/// `ExposureDetection`, in loop slices of `keysPerSlice` keys, so the radio and the console keep running
/// while millions of keys go by.
///
/// Keys stream out of each file's resumable iterator, read 64 KiB at a time from the downloaded file, and
/// only matches are kept: memory is the detection's index and hits, whatever the files hold. Each file is
/// a transaction of the detection: one that turns out corrupt past its header (or changed on disk since it
/// was verified) contributes nothing, even keys already read from it.
final class BatchMatchJob {
    /// One file of the batch, and the name the log gives it.
    struct File {
        enum Keys {
            case export(VerifiedExportFile)
            /// Keys already in memory: those the cursor held until their embargo ended.
            case held([DiagnosisKey])
        }

        var keys: Keys
        var name: String

        /// A function that hands out the file's keys one at a time, nil after the last.
        func makeKeySource() throws(ExportFileError) -> () throws(ExportFileError) -> DiagnosisKey? {
            switch keys {
            case .export(let export):
                let iterator = try export.makeKeyIterator()
                return { () throws(ExportFileError) in try iterator.next()?.key }
            case .held(let held):
                var iterator = held.makeIterator()
                return { () throws(ExportFileError) in iterator.next() }
            }
        }

        /// How the log names the file when it turns out corrupt.
        var label: String {
            guard case .export(let export) = keys else { return name }
            return "\(name) (file \(export.batch.number) of \(export.batch.batch))"
        }
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
    /// The current file's keys; nil between files.
    private var nextKey: (() throws(ExportFileError) -> DiagnosisKey?)?
    private var outcome = Outcome()
    private var job: SlicedJob?

    init(files: [File], detection: ExposureDetection, loop: any EventLoop) {
        self.files = files
        self.detection = detection
        self.loop = loop
    }

    func start(keysPerSlice: Int, completion: @escaping (Outcome) -> Void) {
        let started = loop.now
        job = SlicedJob.start(on: loop, budget: .iterations(max(1, keysPerSlice)), step: { [self] in
            step()
        }, onFinished: { [self] in
            outcome.slices = job?.slices ?? 0
            outcome.elapsed = loop.now - started
            job = nil
            completion(outcome)
        })
    }

    /// Stops; a file half read is taken back.
    func cancel() {
        job?.cancel()
        job = nil
        if nextKey != nil { detection.abandonFile() }
        nextKey = nil
    }

    /// One key, or the move to the next file.
    private func step() -> SliceResult {
        do throws(ExportFileError) {
            if nextKey == nil {
                guard fileIndex < files.count else { return .done }
                detection.beginFile(files[fileIndex].name)
                nextKey = try files[fileIndex].makeKeySource()
            }
            if let key = try nextKey?() {
                detection.consider(key)
            } else {
                detection.endFile()
                nextFile()
            }
        } catch {
            detection.abandonFile()
            outcome.corruptFiles.append("\(files[fileIndex].label): \(error)")
            nextFile()
        }
        return .more
    }

    private func nextFile() {
        nextKey = nil
        fileIndex += 1
    }
}
