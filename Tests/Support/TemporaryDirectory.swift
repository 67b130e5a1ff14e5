import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it at the end.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init() {
        var template = Array((NSTemporaryDirectory() + "/enbeacon-test-XXXXXX").utf8CString)
        path = String(cString: mkdtemp(&template)!)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The size of a file in bytes, -1 when it cannot be read.
    public static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    /// The permission bits of a file, -1 when it cannot be read.
    public static func mode(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}
