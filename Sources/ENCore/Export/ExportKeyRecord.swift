/// The fields of one `TemporaryExposureKey` message exactly as the file states them, before validation.
///
/// Decoding and validating are separate steps: a record that decodes but breaks a rule (a 15-byte key,
/// a period of 200) is a skippable key, while a record that does not decode is a corrupt file.
struct ExportKeyRecord {
    /// Absent until field 1 is seen; its length is kept so a wrong-sized key can be reported, not read.
    var keyDataLength: Int?
    var keyData = Bytes16.zero
    var transmissionRiskLevel: Int32?
    var rollingStartIntervalNumber: Int32?
    var rollingPeriod: Int32?
    /// The raw enum value; values this schema does not define are treated as absent (proto2 semantics).
    var reportType: Int32?
    var daysSinceOnsetOfSymptoms: Int32?

    static func decode(_ buffer: UnsafeRawBufferPointer, range: Range<Int>) throws(WireFormatError) -> ExportKeyRecord {
        var record = ExportKeyRecord()
        var reader = ProtobufReader(buffer, range: range)
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(.lengthDelimited, tag, in: "TemporaryExposureKey")
                let data = try reader.readLengthDelimited()
                record.keyDataLength = data.count
                if data.count == 16 { record.keyData = Bytes16(loading: buffer, at: data.lowerBound) }
            case 2:
                try reader.require(.varint, tag, in: "TemporaryExposureKey")
                record.transmissionRiskLevel = try reader.readInt32()
            case 3:
                try reader.require(.varint, tag, in: "TemporaryExposureKey")
                record.rollingStartIntervalNumber = try reader.readInt32()
            case 4:
                try reader.require(.varint, tag, in: "TemporaryExposureKey")
                record.rollingPeriod = try reader.readInt32()
            case 5:
                try reader.require(.varint, tag, in: "TemporaryExposureKey")
                record.reportType = try reader.readInt32()
            case 6:
                try reader.require(.varint, tag, in: "TemporaryExposureKey")
                record.daysSinceOnsetOfSymptoms = try reader.readSInt32()
            default:
                try reader.skip(tag)
            }
        }
        return record
    }

    /// The key, or the first rule it breaks (SPEC §3). Absent fields take their proto2 defaults:
    /// rolling_period 144, transmission_risk_level 0, report_type 0 (unknown: risk scoring decides
    /// what that means); a report_type this schema does not define is treated as absent. Any
    /// days_since_onset_of_symptoms is kept as given (see `KeyRejection`).
    func validated(in list: ExportKeyList) -> Result<DiagnosisKey, KeyRejection> {
        guard keyDataLength == 16 else { return .failure(.keyDataNot16Bytes) }
        guard let start = rollingStartIntervalNumber, start >= 0 else { return .failure(.missingRollingStart) }
        let period = rollingPeriod ?? Int32(ENIntervalNumber.intervalsPerDay)
        guard period >= 1, period <= Int32(ENIntervalNumber.intervalsPerDay) else {
            return .failure(.rollingPeriodOutOfRange)
        }
        let type = reportType.flatMap { ReportType(rawValue: Int($0)) } ?? .unknown
        if type == .recursive { return .failure(.recursiveReport) }
        if type == .revoked, list != .revisedKeys { return .failure(.revokedOutsideRevisedKeys) }
        let tek = TemporaryExposureKey(keyData: keyData, rollingStart: ENIntervalNumber(UInt32(start)),
                                       rollingPeriod: UInt32(period))
        return .success(DiagnosisKey(tek: tek, transmissionRiskLevel: Int(transmissionRiskLevel ?? 0),
                                     reportType: type, daysSinceOnsetOfSymptoms: daysSinceOnsetOfSymptoms.map(Int.init)))
    }
}
