/// One diagnosis key as a `TemporaryExposureKey` record of export.bin, and the rules a key must meet to be
/// written: the writer refuses exactly what `ExportKeyRecord.validated` would make a reader skip, plus a
/// transmission risk level outside the schema's 0…8 and a days since onset that does not fit the field's sint32.
///
/// Fields in schema order: key_data, transmission_risk_level, rolling_start_interval_number, rolling_period,
/// then report_type unless unknown (its proto2 default, so absent reads back the same) and
/// days_since_onset_of_symptoms when known. rolling_period is always written, as Google's server does,
/// rather than left to the default of 144.
enum ExportKeyEncoding {
    static let transmissionRiskRange = 0...8

    /// Nil when `key` may be written to `list`, else why not.
    static func rejection(of key: DiagnosisKey, in list: ExportKeyList) -> String? {
        let tek = key.tek
        guard tek.rollingStart.value <= UInt32(Int32.max) else {
            return KeyRejection.missingRollingStart.description + " (\(tek.rollingStart) does not fit an int32)"
        }
        guard (1...ENIntervalNumber.intervalsPerDay).contains(tek.rollingPeriod) else {
            return "\(KeyRejection.rollingPeriodOutOfRange) (\(tek.rollingPeriod))"
        }
        if let onset = key.daysSinceOnsetOfSymptoms, Int32(exactly: onset) == nil {
            return "days_since_onset_of_symptoms \(onset) does not fit an sint32"
        }
        if key.reportType == .recursive { return KeyRejection.recursiveReport.description }
        if key.reportType == .revoked, list != .revisedKeys { return KeyRejection.revokedOutsideRevisedKeys.description }
        guard transmissionRiskRange.contains(key.transmissionRiskLevel) else {
            return "transmission_risk_level \(key.transmissionRiskLevel) outside 0...8"
        }
        return nil
    }

    /// Appends the whole record, tag and length included, to `out`. `scratch` is reused for the inner
    /// message so that two million keys cost no allocation each.
    static func append(_ key: DiagnosisKey, list: ExportKeyList, to out: inout ProtobufWriter,
                       scratch: inout ProtobufWriter) {
        scratch.bytes.removeAll(keepingCapacity: true)
        key.tek.keyData.withUnsafeBytes { scratch.bytesField(1, $0) }
        scratch.int32(2, Int32(key.transmissionRiskLevel))
        scratch.int32(3, Int32(key.tek.rollingStart.value))
        scratch.int32(4, Int32(key.tek.rollingPeriod))
        if key.reportType != .unknown { scratch.int32(5, Int32(key.reportType.rawValue)) }
        if let onset = key.daysSinceOnsetOfSymptoms { scratch.sint32(6, Int32(onset)) }
        out.bytesField(list == .keys ? 7 : 8, scratch.bytes)
    }
}
