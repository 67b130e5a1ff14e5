import Agent
import Testing

/// What `status` says the badge runs, from the badge image's boot facts.
@Suite struct SoftwareIdentityTests {
    @Test func outsideTheImageOnlyTheAgentsVersionIsKnown() {
        let software = SoftwareIdentity(version: "0.1.0")
        #expect(software.description == "enbeacon 0.1.0")
        #expect(software.slot == nil && software.rolledBackFrom == nil)
    }

    @Test func bootFactsNameTheImageTheSlotAndARollback() {
        let facts = "# written at boot\nslot = B\nimage = 0.1.1\nbuild = 20261128T2100Z\nrollback_from = A\n"
        let software = SoftwareIdentity(version: "0.1.1", bootFacts: facts)
        #expect(software.slot == "B" && software.image == "0.1.1" && software.build == "20261128T2100Z")
        #expect(software.rolledBackFrom == "A")
        #expect(software.description == "enbeacon 0.1.1, image 0.1.1 (build 20261128T2100Z), slot B; "
                + "rolled back from slot A: its update did not prove itself")
    }

    @Test func anUnknownKeyOrABrokenLineIsSkippedNotFatal() {
        // A newer image may say more than this agent knows; a torn file must not stop the badge.
        let software = SoftwareIdentity(version: "0.1.0", bootFacts: "slot = A\r\nchannel = beta\nthis is not a line\nimage = 0.1.0\nrollback_from =\n")
        #expect(software.slot == "A" && software.image == "0.1.0")
        #expect(software.rolledBackFrom == nil)
        #expect(software.description == "enbeacon 0.1.0, image 0.1.0, slot A")
    }
}
