import Foundation

/// Published data the tests read, kept in Tests/Fixtures (whose README gives each file's source and licence).
/// Found from this file's own path, so the files are read in place and never bundled. The fixtures belong to
/// the repository: a missing one fails the test that asked for it, naming the file, instead of skipping it.
public enum TestFixtures {
    /// Tests/Fixtures of this checkout.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The official key-schedule vectors: a TEK, its keys, and the RPI and AEM of each of its 144 intervals.
    public static let gaenVectors = "gaen/test_vectors.json"
    /// Published export files, the keys that sign them, and the manifest of what each decodes to.
    public static let gaenExports = "gaen/exports"

    /// The absolute path of a fixture given relative to Tests/Fixtures, once it is known to be there.
    public static func path(_ relative: String) throws -> String {
        let path = directory.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw TestFailure("fixture \(path) is missing: Tests/Fixtures is part of the repository")
        }
        return path
    }

    public static func data(_ relative: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try path(relative)))
    }

    public static func text(_ relative: String) throws -> String {
        String(decoding: try data(relative), as: UTF8.self)
    }

    /// A fixture whose top level is a JSON object.
    public static func jsonObject(_ relative: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: try data(relative)) as? [String: Any] else {
            throw TestFailure("fixture \(relative) is not a JSON object")
        }
        return object
    }
}
