import AgentBase
import ENCore
import Store
import SystemIO

/// Why an agent could not be made; each case carries the error underneath, whose words say what to fix.
package enum AgentError: Error, CustomStringConvertible {
    /// The data directory or the sighting store in it cannot be created or read.
    case dataDirectory(SystemError)
    /// Another agent holds the data directory, or its lock file cannot be made.
    case locked(DataDirectoryLockError)
    case crypto(CryptoError)
    /// A configured value or a file it names (public key, risk configuration) is wrong.
    case configuration(ConfigurationError)

    package var description: String {
        switch self {
        case .dataDirectory(let error): "data directory: \(error)"
        case .locked(let error): "\(error)"
        case .crypto(let error): "\(error)"
        case .configuration(let error): "\(error)"
        }
    }
}
