import ENCore

/// What staff are told as a share moves on, in words that never hold a code, token, certificate, secret or key.
extension ShareOutcome {
    /// The code was accepted: what was verified, and when the keys go out (`note` says why sooner, if they do).
    static func accepted(_ pending: ShareRecord.Pending, note: String) -> ShareOutcome {
        let type = pending.testType == .confirmed ? "a confirmed test" : "a \(pending.testType.rawValue) result"
        let dates = [pending.testDate.map { "test date \($0)" }, pending.symptomOnset.map { "symptom onset \($0)" }]
            .compactMap { $0 }
        let message = "code accepted: \(type)" + (dates.isEmpty ? "" : " (" + dates.joined(separator: ", ") + ")")
            + "; the keys of complete days are published after \(UTCDateTime(unixSeconds: pending.publishAfter))" + note
        return ShareOutcome(kind: .verified, message: message, at: pending.consentedAt)
    }

    /// A code that was not accepted. Nothing is kept, so a failure worth retrying is the staff's to retry (the
    /// code is still valid): the message says so instead of promising a retry.
    static func codeRefused(_ error: HealthAuthorityError, at now: Int64) -> ShareOutcome {
        let message: String
        if error.disposition == .retryLater {
            let reason: String = switch error {
            case .unreachable(let detail, _): detail
            case .httpStatus(let status, _): "HTTP \(status)"
            case .refused(let code, _, let status): "\(code.rawValue), HTTP \(status)"
            case .unknownErrorCode(let code, _, let status): "\(code), HTTP \(status)"
            case .malformedAnswer(let detail, _): detail
            }
            message = "the health authority's verification server could not check the code now (\(reason)): "
                + "nothing was kept; enter the code again in a few minutes"
        } else {
            message = error.description
        }
        return ShareOutcome(kind: .refused, message: message, at: now)
    }

    /// The key server's answer to the publish of the keys starting at `starts`: all stored, or some dropped.
    static func publication(_ answer: PublishOutcome, keys starts: [UInt32], at now: Int64) -> ShareOutcome {
        let warnings = answer.warnings.prefix(5).map(serverWords)
        let days = starts.map { UTCDay(ENIntervalNumber($0)).description }.sorted()
        let span = days.count == 1 ? "of \(days[0])" : "of \(days.first ?? "") to \(days.last ?? "")"
        if answer.isPartialFailure {
            return ShareOutcome(kind: .partiallyPublished, message: "the key server stored \(answer.insertedExposures) of "
                                + "\(starts.count) keys \(span) and dropped the rest"
                                + (warnings.isEmpty ? "" : ": " + warnings.joined(separator: "; ")),
                                at: now, keys: starts.count, insertedExposures: answer.insertedExposures,
                                warnings: Array(warnings))
        }
        return ShareOutcome(kind: .published, message: "shared \(starts.count) key(s) \(span) with the key server "
                            + "(\(answer.insertedExposures) stored)", at: now, keys: starts.count,
                            insertedExposures: answer.insertedExposures)
    }

    /// The token, or the certificate once there is one, lapsed before the keys were published.
    static func expired(_ pending: ShareRecord.Pending) -> ShareOutcome {
        let last = pending.lastError.map { " (last error: \($0))" } ?? ""
        let message = pending.certificate != nil
            ? "the certificate ran out before the key server confirmed the keys\(last): ask the health authority for a "
                + "new code"
            : "the code's verification expired at \(UTCDateTime(unixSeconds: pending.usableUntil)) before the keys could "
                + "be shared\(last): nothing was shared; ask the health authority for a new code"
        return ShareOutcome(kind: .expired, message: message, at: max(pending.usableUntil, 0))
    }

    /// A server's text, as staff may see it: printable ASCII, at most 200 characters.
    static func serverWords(_ text: String) -> String {
        let printable = text.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }
        return String(printable.prefix(200))
    }
}
