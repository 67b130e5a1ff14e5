/// The answer to a request for a run now.
package enum SyncRequest: Equatable, Sendable {
    case started
    case alreadyRunning
    case notConfigured
    case clockNotTrusted
}
