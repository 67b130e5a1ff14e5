import Agent
import ENCore

/// How the export and match commands show keys, header fields and skip counts, as text and as JSON.
/// JSON member names follow the protobuf JSON mapping of export.proto (lowerCamelCase field names);
/// bytes are lowercase hex, like everything enbeacon prints.
enum KeyPresentation {
    /// `HEX rsin N (ISO) period P trl T report TYPE onset D` (`onset -` when the file gives none).
    static func text(_ key: DiagnosisKey, keyHexDigits: Int = 32) -> String {
        let start = key.tek.rollingStart
        let onset = key.daysSinceOnsetOfSymptoms.map(String.init) ?? "-"
        return "\(key.tek.keyData.hex.prefix(keyHexDigits)) rsin \(start.value) (\(UTCDateTime(unixSeconds: start.unixSeconds)))"
            + " period \(key.tek.rollingPeriod) trl \(key.transmissionRiskLevel) report \(key.reportType) onset \(onset)"
    }

    static func json(_ key: DiagnosisKey) -> JSONObject {
        var o = JSONObject()
        o.string("keyData", key.tek.keyData.hex)
        o.integer("rollingStartIntervalNumber", key.tek.rollingStart.value)
        o.string("rollingStartTime", "\(UTCDateTime(unixSeconds: key.tek.rollingStart.unixSeconds))")
        o.integer("rollingPeriod", key.tek.rollingPeriod)
        o.integer("transmissionRiskLevel", key.transmissionRiskLevel)
        o.string("reportType", key.reportType.description)
        o.integer("daysSinceOnsetOfSymptoms", key.daysSinceOnsetOfSymptoms)
        return o
    }

    /// `1590883200 (2020-05-31T00:00:00Z)`
    static func timestamp(_ seconds: UInt64) -> String {
        "\(seconds) (\(UTCDateTime(unixSeconds: Int64(clamping: seconds))))"
    }

    /// Header fields (not the signature infos) as JSON members.
    static func headerJSON(_ header: ExportHeader) -> JSONObject {
        var o = JSONObject()
        o.integer("startTimestamp", header.startTimestamp)
        o.string("startTime", "\(UTCDateTime(unixSeconds: Int64(clamping: header.startTimestamp)))")
        o.integer("endTimestamp", header.endTimestamp)
        o.string("endTime", "\(UTCDateTime(unixSeconds: Int64(clamping: header.endTimestamp)))")
        o.string("region", header.region)
        o.integer("batchNum", header.batchNum)
        o.integer("batchSize", header.batchSize)
        o.integer("keyRecords", header.keyRecordCount)
        o.integer("revisedKeyRecords", header.revisedKeyRecordCount)
        return o
    }

    static func json(_ info: SignatureInfo) -> JSONObject {
        var o = JSONObject()
        o.string("verificationKeyId", info.verificationKeyID)
        o.string("verificationKeyVersion", info.verificationKeyVersion)
        o.string("signatureAlgorithm", info.signatureAlgorithm)
        return o
    }

    /// `{"total":3,"keyDataNot16Bytes":2,…}`, every reason present, zero or not, so scripts can rely on it.
    static func json(_ skipped: SkippedKeys) -> JSONObject {
        var o = JSONObject()
        o.integer("total", skipped.total)
        for reason in KeyRejection.allCases { o.integer(name(reason), skipped[reason]) }
        return o
    }

    static func name(_ reason: KeyRejection) -> String {
        switch reason {
        case .keyDataNot16Bytes: "keyDataNot16Bytes"
        case .missingRollingStart: "missingRollingStart"
        case .rollingPeriodOutOfRange: "rollingPeriodOutOfRange"
        case .recursiveReport: "recursiveReport"
        case .revokedOutsideRevisedKeys: "revokedOutsideRevisedKeys"
        }
    }
}
