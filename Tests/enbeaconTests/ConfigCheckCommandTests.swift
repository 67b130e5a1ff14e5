import Foundation
import Testing
import TestSupport

/// `enbeacon config check`: the badge image refuses a provisioning file with it before anything changes, so
/// its verdict and its one line must be the agent's own.
@Suite struct ConfigCheckCommandTests {
    let folder = TemporaryDirectory()

    func file(_ name: String, _ text: String) throws -> String {
        let path = folder.path + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aValidFileIsSaidValidAndChangesNothing() throws {
        let text = "# badge 12\nsync.interval_hours = 6\nhealth.max_sync_age_hours = 30\n"
        let path = try file("badge.conf", text)
        let r = try Enbeacon.run(["config", "check", path])
        #expect(r.status == 0 && r.stderr.isEmpty)
        #expect(r.stdout == "\(path): valid\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test func aBadValueNamesItsLineAndTheRange() throws {
        let path = try file("badge.conf", "# twelve badges\nsync.interval_hours = 0\n")
        let r = try Enbeacon.run(["config", "check", path])
        #expect(r.status == 1 && r.stdout.isEmpty)
        #expect(r.stderr.contains("\(path) line 2: sync.interval_hours: expected 1-168, got '0'"))
    }

    @Test func anUnknownKeyIsRefused() throws {
        let path = try file("badge.conf", "sync.intervall_hours = 6\n")
        let r = try Enbeacon.run(["config", "check", path])
        #expect(r.status == 1 && r.stderr.contains("line 1: unknown key 'sync.intervall_hours'"))
    }

    @Test func aKeyServerWhosePublicKeyCannotBeReadIsRefused() throws {
        // The agent would refuse to start with it: a provisioned badge must never be left that way.
        let missing = try file("badge.conf", "keyserver.style = folder\nkeyserver.base_url = file:///srv/keys\n"
                               + "keyserver.public_key = \(folder.path)/absent.pem\nkeyserver.key_id = 999\n")
        var r = try Enbeacon.run(["config", "check", missing])
        #expect(r.status == 1 && r.stderr.contains("\(missing): keyserver.public_key: cannot read \(folder.path)/absent.pem"))

        let garbage = try file("garbage.pem", "-----BEGIN PUBLIC KEY-----\nnot base64 at all\n-----END PUBLIC KEY-----\n")
        let withGarbage = try file("badge2.conf", "keyserver.style = folder\nkeyserver.base_url = file:///srv/keys\n"
                                   + "keyserver.public_key = \(garbage)\nkeyserver.key_id = 999\n")
        r = try Enbeacon.run(["config", "check", withGarbage])
        #expect(r.status == 1 && r.stderr.contains("keyserver.public_key: \(garbage)"))
    }

    @Test func aMissingFileOrCommandLineMistakeIsNotValid() throws {
        var r = try Enbeacon.run(["config", "check", folder.path + "/nothing.conf"])
        #expect(r.status == 1 && r.stderr.contains("nothing.conf"))
        r = try Enbeacon.run(["config", "check"])
        #expect(r.status == 2 && r.stderr.contains("which file?"))
        r = try Enbeacon.run(["config", "verify", "x.conf"])
        #expect(r.status == 2 && r.stderr.contains("expected 'config check FILE'"))
    }
}
