import Agent
import ENCore
import KeyShare

/// `keys share CODE`, `keys share status`, `keys share cancel`: sharing a positive wearer's keys through the
/// health authority. Sharing and cancelling need consent, as `keys export` does; the status shows whether a
/// token, certificate, HMAC secret or revision token is held, never one of them.
extension AgentConsole {
    static func registerShareCommands(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand(
            "keys share", summary: "share the keys of complete days through the health authority, with consent",
            usage: "keys share CODE [--test-date YYYY-MM-DD] [--symptom-onset YYYY-MM-DD] [--yes]",
            help: "CODE is the verification code the health authority gave (8 digits or 16 letters and digits). It is "
                + "checked at once; the keys go to the key server after 00:00 UTC, once today's key is off the air "
                + "(a key still in use is never shared). The dates default to those the code was issued with. "
                + "keys share status follows the share; keys share cancel ends it.",
            arguments: 1...1, options: ["--test-date", "--symptom-onset"],
            completion: .words(["status", "cancel"]), consent: .always
        ) { request in
            let code = request.arguments[0]
            if code == "status" || code == "cancel" { return .usage("options go after keys share \(code)") }
            var days: [String: UTCDay] = [:]
            for option in ["--test-date", "--symptom-onset"] {
                guard let text = request.option(option) else { continue }
                guard let day = UTCDay(isoDate: text) else { return .usage("\(option): expected YYYY-MM-DD") }
                days[option] = day
            }
            let answer = ConsoleDeferredReply()
            do throws(KeyShareError) {
                try control.shareKeys(code: code, testDate: days["--test-date"], symptomOnset: days["--symptom-onset"]) { result in
                    switch result {
                    case .success(let status):
                        let message = status.lastOutcome?.message ?? status.state
                        answer.resolve(request.json ? .json(shareStatusJSON(status, message: message))
                                       : .text(message + "\n(keys share status follows the share)"))
                    case .failure(let error):
                        answer.resolve(.error("\(error)"))
                    }
                }
            } catch {
                return .error("\(error)")
            }
            return .deferred(answer)
        })
        table.register(ConsoleCommand("keys share status", summary: "the key share under way and the last outcome (redacted)") { request in
            guard let status = control.keyShare else { return .error("\(KeyShareError.noNetwork)") }
            return request.json ? .json(shareStatusJSON(status)) : .text(shareText(status))
        })
        table.register(ConsoleCommand("keys share cancel", summary: "end the key share under way (its verification is discarded), with consent",
                                      consent: .always) { request in
            do throws(KeyShareError) {
                let status = try control.cancelKeyShare()
                let message = status.lastOutcome?.message ?? status.state
                return request.json ? .json(shareStatusJSON(status, message: message)) : .text(message)
            } catch {
                return .error("\(error)")
            }
        })
    }

    /// The share as JSON: `phase` a stable word (notConfigured, idle, verifying, waiting, publishing, retrying),
    /// `state` in words, times in Unix seconds; `token`, `certificate`, `hmacSecret` and `revisionToken` are
    /// `"redacted"` while held and null otherwise; `lastOutcome` is the event `notify.command` was given.
    static func shareStatusJSON(_ s: KeyShareStatus, message: String? = nil) -> String {
        func held(_ flag: Bool) -> String? { flag ? "redacted" : nil }
        var o = JSONObject()
        if let message { o.string("message", message) }
        o.string("phase", s.phase.rawValue)
        o.string("state", s.state)
        o.raw("missingKeys", JSON.array(s.missingKeys.map(JSONText.quoted)))
        o.string("testType", s.testType?.rawValue)
        o.string("testDate", s.testDate?.description)
        o.string("symptomOnset", s.symptomOnset?.description)
        o.integer("consentedAt", s.consentedAt)
        o.integer("publishAfter", s.publishAfter)
        o.integer("nextAttemptAt", s.nextAttemptAt)
        o.integer("usableUntil", s.usableUntil)
        o.integer("attempts", s.attempts)
        o.string("lastError", s.lastError)
        o.string("token", held(s.holdsToken))
        o.string("certificate", held(s.holdsCertificate))
        o.string("hmacSecret", held(s.holdsSecret))
        o.string("revisionToken", held(s.holdsRevisionToken))
        o.integer("publishedKeys", s.publishedKeys)
        o.integer("publishedAt", s.publishedAt)
        o.raw("lastOutcome", s.lastOutcome?.eventJSON ?? "null")
        return o.text
    }

    /// `keys share status`: the state, what is held (redacted), what was published, the last outcome.
    static func shareText(_ s: KeyShareStatus) -> String {
        func time(_ t: Int64?) -> String { t.map { "\(UTCDateTime(unixSeconds: $0))" } ?? "-" }
        var lines = ["state        \(s.state)"]
        if let type = s.testType {
            lines.append("test         \(type.rawValue), test date \(s.testDate?.description ?? "-"), "
                         + "symptom onset \(s.symptomOnset?.description ?? "-")")
            let held = [s.holdsToken ? "verification token" : nil, s.holdsCertificate ? "certificate" : nil,
                        s.holdsSecret ? "HMAC secret" : nil].compactMap { $0 }
            lines.append("holds        " + (held.isEmpty ? "nothing" : held.joined(separator: ", ") + " (redacted)")
                         + ", usable until \(time(s.usableUntil))")
        }
        if let keys = s.publishedKeys {
            lines.append("published    \(keys) key(s), last at \(time(s.publishedAt))"
                         + (s.holdsRevisionToken ? "; revision token held (redacted)" : ""))
        }
        if let outcome = s.lastOutcome {
            lines.append("last outcome \(time(outcome.at)) \(outcome.kind.rawValue): \(outcome.message)")
        }
        return lines.joined(separator: "\n")
    }

    /// One line, for `status`.
    static func shareLine(_ status: KeyShareStatus?) -> String {
        guard let s = status else { return "not available (no network client)" }
        var line = s.state
        if s.phase == .idle || s.phase == .notConfigured, let outcome = s.lastOutcome {
            line += "; last: \(outcome.kind.rawValue) at \(UTCDateTime(unixSeconds: outcome.at))"
        }
        return line
    }
}
