import Foundation
import Testing
import TestSupport

/// Tests/Fixtures holds other projects' files: each must say where it came from and under which licence, and
/// that licence's text must be there. A file added without a row in the README, or a row naming a licence
/// whose text is missing, fails here rather than in a review.
@Suite struct FixtureProvenanceTests {
    static let readme = "README.md"

    /// Every file under gaen/, relative to Tests/Fixtures.
    static func dataFiles() throws -> Set<String> {
        let gaen = try TestFixtures.path("gaen")
        var files: Set<String> = []
        for case let name as String in try #require(FileManager.default.enumerator(atPath: gaen)) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: gaen + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.insert("gaen/" + name)
            }
        }
        return files
    }

    /// The cells of the README's table rows (header and separator rows left out).
    static func tableRows() throws -> [[String]] {
        try TestFixtures.text(readme).split(separator: "\n").compactMap { line -> [String]? in
            guard line.hasPrefix("| "), !line.hasPrefix("| repository |") else { return nil }
            return line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func everyDataFileHasARowOrIsTheProjectsOwn() throws {
        let text = try TestFixtures.text(Self.readme)
        let files = try Self.dataFiles()
        #expect(files.count >= 17, "\(files.sorted())")
        for file in files.sorted() {
            #expect(text.contains("`\(file)`"), "\(file) is not in Tests/Fixtures/README.md")
        }
    }

    @Test func everyRowNamesARepositoryCommitAndALicenceWhoseTextIsHere() throws {
        let rows = try Self.tableRows()
        #expect(rows.count >= 15)
        var licences: Set<String> = []
        for row in rows {
            try #require(row.count == 6, "a row of six cells: \(row)")
            #expect(row[0].contains("/"), "repository as owner/name: \(row)")
            #expect(row[1].prefix(40).allSatisfy(\.isHexDigit) && row[1].count >= 40, "a full commit hash: \(row)")
            licences.insert(row[5])
        }
        let texts = try FileManager.default.contentsOfDirectory(atPath: try TestFixtures.path("LICENSES"))
        #expect(Set(texts) == Set(licences.map { $0 + ".txt" }), "LICENSES/ holds exactly the licences the rows name")
    }
}
