import ENCore
import Network

/// The bodies of a share's three calls, built from what the share holds and padded to their sizes: which keys go
/// out, under which secret, with what. Pure; `ShareMachine` decides when each is sent.
struct ShareRequests {
    let settings: KeyShareSettings

    /// `keys share CODE`'s question, or why the code or a date cannot be sent; nothing leaves the badge then.
    func verify(code typed: String, testDate: UTCDay?, symptomOnset: UTCDay?, today: UTCDay,
                using random: inout some RandomNumberGenerator) throws(KeyShareError) -> HealthAuthorityRequest? {
        guard let url = settings.url(for: .verify) else { return nil }
        let code: VerificationCode
        do { code = try VerificationCode(typed) } catch { throw .invalidCode(error) }
        try Self.check(testDate, option: "--test-date", today: today)
        try Self.check(symptomOnset, option: "--symptom-onset", today: today)
        do { return post(.verify, url, try VerifyCodeRequest(code: code).body(using: &random)) } catch {
            throw .refused("the badge could not build the request (\(error)): report this to its maintainer")
        }
    }

    /// The keys of complete days of the last 14, less those an earlier publish stored when there is no revision
    /// token to send them again with.
    func keysToShare(_ own: [TemporaryExposureKey], at interval: ENIntervalNumber?,
                     after publication: ShareRecord.Publication?) -> [PublishedKey] {
        guard let interval else { return [] }
        var keys = PublishableKeys.select(own, at: interval)
        if let publication, publication.revisionToken == nil {
            keys.removeAll { publication.keyStarts.contains($0.rollingStartNumber.value) }
        }
        return keys
    }

    /// The certificate request for `keys` under a fresh HMAC secret, with the upload it covers; the reason
    /// (in staff's words) when it cannot be built.
    func certificate(token: String, keys: [PublishedKey],
                     using random: inout some RandomNumberGenerator) -> Result<(KeyUpload, HealthAuthorityRequest), Refusal> {
        guard let url = settings.url(for: .certificate) else { return .failure(.notConfigured) }
        do {
            let upload = try KeyUpload(keys: keys, using: &random)
            let body = try CertificateRequest(token: token, upload: upload).body(using: &random)
            return .success((upload, post(.certificate, url, body)))
        } catch {
            return .failure(.because("the badge could not build the certificate request (\(error)): report this to its "
                                     + "maintainer; nothing was sent"))
        }
    }

    /// The publish of exactly the keys the certificate's HMAC covers, read from the badge's own keys (none still
    /// on air), with the revision token of an earlier publish; with how many keys it carries.
    func publish(_ pending: ShareRecord.Pending, own: [TemporaryExposureKey], at interval: ENIntervalNumber?,
                 revisionToken: String?, using random: inout some RandomNumberGenerator) -> Result<(Int, HealthAuthorityRequest), Refusal> {
        guard let certificate = pending.certificate, let secret = pending.secret, let url = settings.url(for: .publish),
              let healthAuthorityID = settings.healthAuthorityID else { return .failure(.notConfigured) }
        let complete = own.filter { $0.rollingEnd <= UInt64(interval?.value ?? 0) }
        var keys: [PublishedKey] = []
        for start in pending.keyStarts {
            guard let key = complete.first(where: { $0.rollingStart.value == start }) else { break }
            keys.append(PublishedKey(key))
        }
        guard keys.count == pending.keyStarts.count else {
            return .failure(.because("the badge's keys changed after the certificate was issued, so they cannot be "
                                     + "shared with it: ask the health authority for a new code"))
        }
        do {
            let upload = try KeyUpload(keys: keys, secret: secret)
            let body = try PublishRequest(upload: upload, certificate: certificate, healthAuthorityID: healthAuthorityID,
                                          symptomOnset: pending.symptomOnset ?? pending.testDate,
                                          revisionToken: revisionToken).body(using: &random)
            return .success((keys.count, post(.publish, url, body)))
        } catch {
            return .failure(.because("the badge could not build the publish request (\(error)): report this to its "
                                     + "maintainer, and ask the health authority for a new code"))
        }
    }

    /// Why a request was not built.
    enum Refusal: Error {
        /// What it needs is not configured, or not held: nothing is sent, and the share waits as it is.
        case notConfigured
        /// It never can be: the share ends with these words.
        case because(String)
    }

    /// One call of the upload, its body padded already.
    private func post(_ endpoint: PublishingEndpoint, _ url: String, _ body: String) -> HealthAuthorityRequest {
        HealthAuthorityRequest(url: url, headers: settings.headers(for: endpoint), body: Array(body.utf8),
                               caFile: settings.caFile)
    }

    private static func check(_ day: UTCDay?, option: String, today: UTCDay) throws(KeyShareError) {
        guard let day else { return }
        if day > today { throw .badDate(option: option, reason: "\(day) is after today (\(today)): check the date") }
        if day.days(until: today) > 28 {
            throw .badDate(option: option, reason: "\(day) is more than 28 days ago: the key server ignores such a date; "
                           + "check it, or leave the option out")
        }
    }
}
