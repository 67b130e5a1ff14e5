import ENCore
import EventLoop

/// Checks one downloaded export's signature in loop slices (`ExportVerification`, one field per step), so
/// that hashing and inflating a 60 MB file never holds up the radio or the console.
final class VerificationJob {
    private let verification: ExportVerification
    private let loop: any EventLoop
    private var job: SlicedJob?
    private var result: Result<VerifiedExportFile, ExportFileError>?

    init(_ verification: ExportVerification, loop: any EventLoop) {
        self.verification = verification
        self.loop = loop
    }

    func start(completion: @escaping (Result<VerifiedExportFile, ExportFileError>, _ slices: Int) -> Void) {
        job = SlicedJob.start(on: loop, step: { [self] in
            do throws(ExportFileError) {
                guard let verified = try verification.advance() else { return .more }
                result = .success(verified)
            } catch {
                result = .failure(error)
            }
            return .done
        }, onFinished: { [self] in
            let slices = job?.slices ?? 0
            job = nil
            if let result { completion(result, slices) }
        })
    }

    func cancel() {
        job?.cancel()
        job = nil
    }
}
