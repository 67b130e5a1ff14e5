import Foundation

/// `../shared/gaen` beside the project root: present on developer machines and in CI, absent in a
/// plain clone elsewhere, where the tests that need it skip with a message saying so.
enum SharedData {
    static let gaenDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/gaen")

    static var available: Bool {
        FileManager.default.fileExists(atPath: gaenDirectory.appendingPathComponent("test_vectors.json").path)
    }

    static let skipReason: Comment = "../shared/gaen is absent next to the project: skipping tests on the official data"

    static func json(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: gaenDirectory.appendingPathComponent(name))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }
}

import Testing
