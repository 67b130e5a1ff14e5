import Foundation
import Testing
@testable import ENCore

/// The sample of SPEC §5 (Apple's sample app shape).
private let appleSampleV1 = """
    {"minimumRiskScore":0, "attenuationDurationThresholds":[50,70],
     "attenuationLevelValues":[1,2,3,4,5,6,7,8], "daysSinceLastExposureLevelValues":[1,2,3,4,5,6,7,8],
     "durationLevelValues":[1,2,3,4,5,6,7,8], "transmissionRiskLevelValues":[1,2,3,4,5,6,7,8]}
    """

/// The v1 sample with one member's value replaced by `replacement` (raw JSON text).
private func v1(replacing member: String, with replacement: String) -> String {
    var members = [
        "minimumRiskScore": "0", "attenuationDurationThresholds": "[50,70]",
        "attenuationLevelValues": "[1,2,3,4,5,6,7,8]", "daysSinceLastExposureLevelValues": "[1,2,3,4,5,6,7,8]",
        "durationLevelValues": "[1,2,3,4,5,6,7,8]", "transmissionRiskLevelValues": "[1,2,3,4,5,6,7,8]",
    ]
    members[member] = replacement
    return "{" + members.compactMap { name, value in value.isEmpty ? nil : "\"\(name)\": \(value)" }
        .joined(separator: ", ") + "}"
}

private let fullV2 = """
    {"attenuationThresholds": [55, 63, 70],
     "attenuationWeights": {"immediate": 1.5, "near": 1.0, "medium": 0.5, "other": 0},
     "reportTypeWeights": {"confirmedTest": 1, "confirmedClinicalDiagnosis": 1, "selfReport": 0.5, "recursive": 0},
     "reportTypeWhenUnknown": "selfReport",
     "infectiousnessWeights": {"standard": 1, "high": 2.5},
     "infectiousnessForDaysSinceOnset": {"-2": "standard", "11": "high", "-14": "high"},
     "infectiousnessWhenOnsetUnknown": "none",
     "minimumWindowScore": 900,
     "comment": "members nobody asks for are ignored"}
    """

private let minimalV2 = """
    {"attenuationThresholds": [55, 63, 70],
     "attenuationWeights": {"immediate": 1, "near": 1, "medium": 1, "other": 1},
     "reportTypeWeights": {"confirmedTest": 1, "confirmedClinicalDiagnosis": 1, "selfReport": 1, "recursive": 1},
     "infectiousnessWeights": {"standard": 1, "high": 1},
     "minimumWindowScore": 0}
    """

/// The error a configuration produces, as the operator would read it; nil when it loads.
private func v1Error(_ json: String) -> String? {
    do {
        _ = try ExposureConfigurationV1(json: json)
        return nil
    } catch {
        return error.description
    }
}

private func v2Error(_ json: String) -> String? {
    do {
        _ = try ExposureConfigurationV2(json: json)
        return nil
    } catch {
        return error.description
    }
}

private func syntaxError(_ json: String) -> JSONSyntaxError? {
    do {
        _ = try JSONValue.parse(json)
        return nil
    } catch {
        return error
    }
}

@Suite("Risk configuration JSON: the strict reader and both configuration shapes")
struct RiskConfigurationJSONTests {
    @Test func appleSampleDecodes() throws {
        let configuration = try ExposureConfigurationV1(json: appleSampleV1)
        #expect(configuration.minimumRiskScore == 0)
        #expect(configuration.attenuationDurationThresholds == [50, 70])
        #expect(configuration.attenuationLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(configuration.transmissionRiskLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        // Unknown members ignored; 8.0 is the integer 8.
        let extended = try ExposureConfigurationV1(json: v1(replacing: "durationLevelValues", with: "[0,0,0,0,0,0,0,8.0]")
            .replacingOccurrences(of: "{", with: "{\"note\": [1, {\"x\": null}], "))
        #expect(extended.durationLevelValues == [0, 0, 0, 0, 0, 0, 0, 8])
    }

    @Test func v1ErrorsNameTheField() {
        #expect(v1Error(v1(replacing: "attenuationLevelValues", with: "[1,2,3,9,5,6,7,8]"))
            == "attenuationLevelValues[3]: 9 is outside 0…8")
        #expect(v1Error(v1(replacing: "durationLevelValues", with: "[1,2,3,4,5,6,-1,8]"))
            == "durationLevelValues[6]: -1 is outside 0…8")
        #expect(v1Error(v1(replacing: "daysSinceLastExposureLevelValues", with: "[1,2,3,4,5,6,7]"))
            == "daysSinceLastExposureLevelValues: expected 8 values, found 7")
        #expect(v1Error(v1(replacing: "transmissionRiskLevelValues", with: "[1,2,3,4,5,6,7,8,1]"))
            == "transmissionRiskLevelValues: expected 8 values, found 9")
        #expect(v1Error(v1(replacing: "transmissionRiskLevelValues", with: "\"1,2,3\""))
            == "transmissionRiskLevelValues: expected an array of 8 integers, found a string")
        #expect(v1Error(v1(replacing: "attenuationLevelValues", with: "[1,2,\"3\",4,5,6,7,8]"))
            == "attenuationLevelValues[2]: expected an integer, found a string")
        #expect(v1Error(v1(replacing: "attenuationLevelValues", with: "[1,2,2.5,4,5,6,7,8]"))
            == "attenuationLevelValues[2]: expected an integer, found 2.5")
        #expect(v1Error(v1(replacing: "minimumRiskScore", with: "\"0\""))
            == "minimumRiskScore: expected an integer, found a string")
        #expect(v1Error(v1(replacing: "minimumRiskScore", with: "4097")) == "minimumRiskScore: 4097 is outside 0…4096")
        // Past a 32-bit board's Int (2^31 - 1): refused by range there too, not trapped in Int(_:).
        #expect(v1Error(v1(replacing: "minimumRiskScore", with: "3000000000"))
            == "minimumRiskScore: 3000000000 is outside 0…4096")
        #expect(v1Error(v1(replacing: "minimumRiskScore", with: "null"))
            == "minimumRiskScore: expected an integer, found null")
        #expect(v1Error(v1(replacing: "minimumRiskScore", with: "")) == "minimumRiskScore: missing")
        #expect(v1Error(v1(replacing: "attenuationDurationThresholds", with: "[70,50]"))
            == "attenuationDurationThresholds: [70, 50] must not descend")
        #expect(v1Error(v1(replacing: "attenuationDurationThresholds", with: "[50,256]"))
            == "attenuationDurationThresholds[1]: 256 is outside 0…255")
        #expect(v1Error("[1, 2]") == "expected a JSON object, found an array")
        #expect(v1Error("{\"minimumRiskScore\": 0,}")
            == "invalid JSON at byte 23: expected a member name in double quotes")
    }

    @Test func v2FullDocumentDecodes() throws {
        let configuration = try ExposureConfigurationV2(json: fullV2)
        #expect(configuration.attenuationThresholds == [55, 63, 70])
        #expect(configuration.attenuationWeights == [1.5, 1.0, 0.5, 0])
        #expect(configuration.weight(of: .selfReport) == 0.5)
        #expect(configuration.weight(of: .unknown) == 0.5)  // mapped to selfReport
        #expect(configuration.weight(of: .revoked) == 0)
        #expect(configuration.weight(of: .high) == 2.5)
        #expect(configuration.minimumWindowScore == 900)
        // Overridden days change, the others keep the default.
        #expect(configuration.infectiousness[-2] == .standard)
        #expect(configuration.infectiousness[11] == .high)
        #expect(configuration.infectiousness[-14] == .high)
        #expect(configuration.infectiousness[-1] == .high)
        #expect(configuration.infectiousness[12] == .none)
        #expect(configuration.infectiousness.whenUnknown == .none)
    }

    @Test func v2OptionalMembersDefault() throws {
        let configuration = try ExposureConfigurationV2(json: minimalV2)
        #expect(configuration.reportTypeWhenUnknown == .confirmedTest)
        #expect(configuration.infectiousness == .default)
        #expect(configuration.infectiousness.whenUnknown == .standard)
    }

    @Test func v2ErrorsNameTheField() {
        func replacing(_ old: String, _ new: String) -> String? {
            v2Error(minimalV2.replacingOccurrences(of: old, with: new))
        }
        /// The minimal document with one more member, given as raw JSON text.
        func adding(_ member: String) -> String? {
            v2Error(minimalV2.replacingOccurrences(of: "\"minimumWindowScore\": 0", with: "\"minimumWindowScore\": 0, \(member)"))
        }
        #expect(replacing("\"near\": 1", "\"near\": 2.6") == "attenuationWeights.near: 2.6 is outside 0…2.5")
        #expect(replacing("\"near\": 1", "\"near\": -0.5") == "attenuationWeights.near: -0.5 is outside 0…2.5")
        #expect(replacing("\"near\": 1, ", "") == "attenuationWeights.near: missing")
        #expect(replacing("\"high\": 1", "\"high\": true")
            == "infectiousnessWeights.high: expected a number, found a boolean")
        #expect(replacing("[55, 63, 70]", "[55, 55, 70]")
            == "attenuationThresholds: [55, 55, 70] must be strictly ascending")
        #expect(replacing("[55, 63, 70]", "[55, 63]") == "attenuationThresholds: expected 3 values, found 2")
        #expect(replacing("\"minimumWindowScore\": 0", "\"minimumWindowScore\": -1") == "minimumWindowScore: -1 is below 0")
        #expect(replacing("{\"confirmedTest\": 1,", "7, \"x\": {\"confirmedTest\": 1,")
            == "reportTypeWeights: expected an object, found a number")
        #expect(replacing("\"reportTypeWeights\": {", "\"reportTypeWeights\": [")?.hasPrefix("invalid JSON at byte") == true)
        #expect(adding("\"infectiousnessForDaysSinceOnset\": {\"15\": \"high\"}")
            == "infectiousnessForDaysSinceOnset.15: member names must be days −14…14")
        #expect(adding("\"infectiousnessForDaysSinceOnset\": {\"3\": \"medium\"}")
            == "infectiousnessForDaysSinceOnset.3: \"medium\" is not none, standard or high")
        #expect(adding("\"infectiousnessWhenOnsetUnknown\": 1")
            == "infectiousnessWhenOnsetUnknown: expected a string, found a number")
        #expect(adding("\"reportTypeWhenUnknown\": \"revoked\"")
            == "reportTypeWhenUnknown: \"revoked\" is not one of "
            + "[confirmedTest, confirmedClinicalDiagnosis, selfReport, recursive]")
    }

    @Test func readerAcceptsEveryValueKind() throws {
        let value = try JSONValue.parse(#" {"a": [true, false, null, -0.5e1, 0, 12], "b": {"c": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}} "#)
        #expect(value == .object([
            "a": .array([.bool(true), .bool(false), .null, .number(-5), .number(0), .number(12)]),
            "b": .object(["c": .string("x\"\\/\u{08}\u{0C}\n\r\té😀")]),
        ]))
        #expect(try JSONValue.parse("[]") == .array([]))
        #expect(try JSONValue.parse("{}") == .object([:]))
        #expect(try JSONValue.parse("\"é — ok\"") == .string("é — ok"))
        #expect(try JSONValue.parse(utf8: Array("[1]".utf8)) == .array([.number(1)]))
    }

    @Test func readerRejectsWhatRFC8259Rejects() {
        // (document, byte offset, reason)
        let cases: [(String, Int, String)] = [
            ("", 0, "unexpected end of document, expected a value"),
            ("[1,]", 3, "unexpected character, expected a value"),
            ("[1 2]", 3, "expected ',' or ']' in an array"),
            ("{\"a\" 1}", 5, "expected ':' after a member name"),
            ("{\"a\": 1, \"a\": 2}", 9, "duplicate member \"a\""),
            ("{'a': 1}", 1, "expected a member name in double quotes"),
            ("012", 1, "leading zeros are not allowed"),
            ("1.", 2, "expected a digit after '.'"),
            ("1e", 2, "expected a digit in the exponent"),
            ("-", 1, "expected a digit"),
            ("+1", 0, "unexpected character, expected a value"),
            ("1e999", 0, "number 1e999 is out of range"),
            ("NaN", 0, "unexpected character, expected a value"),
            ("tru", 0, "unexpected word, expected true"),
            ("\"abc", 4, "unterminated string"),
            ("\"a\tb\"", 2, "control character in a string (escape it)"),
            ("\"\\x\"", 2, "unknown escape"),
            ("\"\\u12g4\"", 5, "expected four hex digits after \\u"),
            ("\"\\ud83d\"", 1, "unpaired UTF-16 surrogate"),
            ("\"\\ude00\"", 1, "unpaired UTF-16 surrogate"),
            ("{} {}", 3, "unexpected text after the document"),
            ("[1] // comment", 4, "unexpected text after the document"),
        ]
        for (document, offset, reason) in cases {
            #expect(syntaxError(document) == JSONSyntaxError(offset: offset, reason: reason), "\(document)")
        }
    }

    @Test func readerBoundsNestingAndRefusesInvalidUTF8() {
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(syntaxError(deep) == nil)
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(syntaxError(tooDeep) == JSONSyntaxError(offset: 64, reason: "nested deeper than 64 levels"))
        #expect(throws: JSONSyntaxError(offset: 0, reason: "the document is not valid UTF-8")) {
            try JSONValue.parse(utf8: [0x22, 0xFF, 0x22])
        }
    }

    /// Differential check against Foundation (tests may use it; the agent may not) on valid documents.
    @Test func readerAgreesWithFoundationOnValidDocuments() throws {
        let documents = [
            appleSampleV1, fullV2, minimalV2,
            #"{"n": [0, -0, 1.5, -2.25e2, 1E3, 123456789, 0.1], "s": ["", "\u0041\n", "ü"], "o": {"x": {"y": []}}}"#,
        ]
        for document in documents {
            let ours = try JSONValue.parse(document)
            let theirs = try JSONSerialization.jsonObject(with: Data(document.utf8))
            #expect(Self.same(ours, theirs), "\(document)")
        }
    }

    private static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let b): return (theirs as? NSNumber).map { $0.boolValue == b } ?? false
        case .number(let n): return (theirs as? NSNumber)?.doubleValue == n
        case .string(let s): return theirs as? String == s
        case .array(let elements):
            guard let other = theirs as? [Any], other.count == elements.count else { return false }
            return zip(elements, other).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let other = theirs as? [String: Any], other.count == members.count else { return false }
            return members.allSatisfy { name, value in other[name].map { same(value, $0) } ?? false }
        }
    }
}
