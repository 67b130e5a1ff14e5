import ENCore
import EventLoop
import Network

/// What `ShareMachine` asks its driver (`KeyShare`) to do, in the order given. The driver answers some with an
/// event when their outcome comes: a request's answer, a timer, the badge's keys.
enum ShareAction: Equatable {
    /// POST `request` to `endpoint`; answer `answered(endpoint, …)` when it comes back. One at a time; nothing
    /// else answers a real request.
    case send(PublishingEndpoint, HealthAuthorityRequest)
    /// Drop the request under way: its answer must not come.
    case cancelRequest
    /// Read the badge's own keys (the advertiser's, as in `DATA/keys`) and answer `keysRead` at once.
    case readKeys
    /// Write `DATA/share` (0600, atomically; deleted when the record is empty) before doing what follows.
    case saveRecord(ShareRecord)
    case log(Logger.Level, String)
    /// Run `notify.command` with the outcome (already on disk) and tell the agent (the LED and buzzer).
    case notify(ShareOutcome)
    /// Answer staff's `keys share CODE`.
    case answer(Result<KeyShareStatus, KeyShareError>)
    /// Answer `wakeTimerFired` after `delay`.
    case scheduleWake(after: Duration)
    case cancelWake
    /// A chaff request, whose answer is not read; answer `chaffAnswered` when it comes back.
    case sendChaff(HealthAuthorityRequest)
    case cancelChaff
    /// Answer `chaffTimerFired` after `delay`.
    case scheduleChaff(after: Duration)
    case cancelChaffTimer
}
