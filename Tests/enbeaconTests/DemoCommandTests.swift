import Testing

@Suite struct DemoCommandTests {
    @Test func threeDaysTellTheStoryAndEndWithAVerdict() throws {
        let r = try Enbeacon.run(["demo", "--days", "3", "--badges", "3", "--seed", "5"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        for day in 1...4 { #expect(r.stdout.contains("Day \(day) — 2021-06-0\(day)")) }
        #expect(r.stdout.contains("residents gather in the day room"))
        #expect(r.stdout.contains("Alice's badge hears"))
        #expect(r.stdout.contains("0 controller rule violations"))
        // The ending: Alice tests positive; her keys are published; whoever met her is told, the bedridden
        // resident (the last one) is not.
        #expect(r.stdout.contains("Alice tests positive"))
        #expect(r.stdout.contains("Bernard's badge: exposure detected"))
        #expect(r.stdout.contains("Clara's badge: no exposure"))
        // The virtual LED: the exposure pattern on the exposed badge until a carer's press acknowledges it.
        #expect(r.stdout.contains("    its LED: exposure found: fast blinking, three beeps every 10 s, until acknowledged"))
        #expect(r.stdout.contains("a carer presses Bernard's button: on air: one short flash every 5 s; the exposure stays recorded"))
        #expect(r.stdout.contains("exactly those that met Alice"))
        let verdict = r.stdout.split(separator: "\n").last { $0.hasPrefix("Verdict:") }
        #expect(verdict != nil)
        // The same seed tells the same story.
        let again = try Enbeacon.run(["demo", "--days", "3", "--badges", "3", "--seed", "5"])
        #expect(again.stdout == r.stdout)
    }

    @Test func badOptionsAreUsageErrors() throws {
        let r = try Enbeacon.run(["demo", "--days", "0"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--days: expected 1-30"))
    }
}
