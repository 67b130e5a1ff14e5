/// Exposure windows in the JSON shape phones' exposure notification APIs give them, as the Corona-Warn-App's test
/// file writes them:
///
/// ```json
/// [{"ageInDays": 1, "reportType": 1, "infectiousness": 2, "calibrationConfidence": 0,
///   "scanInstances": [{"minAttenuation": 30, "typicalAttenuation": 25, "secondsSinceLastScan": 300}]}]
/// ```
///
/// - The document is an array of windows, or an object holding one under `exposureWindows` (so one of the test
///   file's cases can be given as it is; its other members are ignored).
/// - The window's day: `ageInDays` (whole days before `today`, ≥ 0) or `date`, either `"2020-12-01"` or
///   milliseconds since 1970 as Android's `dateMillisSinceEpoch` (the start of a UTC day); exactly one of the two.
/// - `reportType` 1–4 (confirmed test, clinical diagnosis, self report, recursive) and `infectiousness` 1–2
///   (standard, high) are the APIs' numbers: phones report no window for unknown, revoked or none.
///   `calibrationConfidence` 0–3, optional, default 0 (lowest).
/// - `scanInstances`: attenuations 0–255 dB; `secondsSinceLastScan` an integer as the phone reported it.
/// Other members are ignored. The instances are given the window's midnight as their time: phones report none.
public enum ExposureWindowsJSON {
    /// The windows of `json`, in the document's order; ages counted back from `today`.
    public static func windows(json: String, today: UTCDay) throws(RiskConfigurationError) -> [ExposureWindow] {
        let document: JSONValue
        do { document = try JSONValue.parse(json) } catch { throw RiskConfigurationError(field: nil, reason: error.description) }
        return try windows(document, today: today)
    }

    /// The windows of a document already parsed.
    public static func windows(_ document: JSONValue, today: UTCDay) throws(RiskConfigurationError) -> [ExposureWindow] {
        let list: [ConfigurationObject]
        if case .array(let elements) = document {
            list = try objects(elements, path: "")
        } else {
            let holder = try ConfigurationObject(document, path: "")
            guard case .array(let elements) = try holder.value("exposureWindows") else {
                throw RiskConfigurationError(field: "exposureWindows", reason: "expected an array of windows")
            }
            list = try objects(elements, path: "exposureWindows")
        }
        var result: [ExposureWindow] = []
        for window in list { result.append(try self.window(window, today: today)) }
        return result
    }

    private static func objects(_ elements: [JSONValue], path: String) throws(RiskConfigurationError) -> [ConfigurationObject] {
        var result: [ConfigurationObject] = []
        for (index, element) in elements.enumerated() {
            result.append(try ConfigurationObject(element, path: "\(path)[\(index)]"))
        }
        return result
    }

    private static func window(_ object: ConfigurationObject, today: UTCDay) throws(RiskConfigurationError) -> ExposureWindow {
        let date = try day(of: object, today: today)
        let typeNumber = try object.integer("reportType", in: 0...5)
        guard (1...4).contains(typeNumber), let reportType = ReportType(rawValue: typeNumber) else {
            throw RiskConfigurationError(field: object.fieldPath("reportType"),
                                         reason: "\(typeNumber) (\(ReportType(rawValue: typeNumber)!)) never labels a "
                                             + "phone's window: expected 1–4")
        }
        let infectiousness = Infectiousness(rawValue: try object.integer("infectiousness", in: 1...2))!
        let confidence = object.contains("calibrationConfidence")
            ? CalibrationConfidence(rawValue: try object.integer("calibrationConfidence", in: 0...3))! : .lowest
        var instances: [ScanInstance] = []
        for instance in try object.objects("scanInstances") {
            instances.append(ScanInstance(
                time: date.unixSeconds,
                typicalAttenuation: UInt8(try instance.integer("typicalAttenuation", in: 0...255)),
                minAttenuation: UInt8(try instance.integer("minAttenuation", in: 0...255)),
                secondsSinceLastScan: try instance.integer("secondsSinceLastScan", in: -86_400 * 366...86_400 * 366)))
        }
        return ExposureWindow(date: date, reportType: reportType, infectiousness: infectiousness,
                              scanInstances: instances, calibrationConfidence: confidence)
    }

    private static func day(of object: ConfigurationObject, today: UTCDay) throws(RiskConfigurationError) -> UTCDay {
        switch (object.contains("ageInDays"), object.contains("date")) {
        case (true, true):
            throw RiskConfigurationError(field: object.fieldPath("date"), reason: "give ageInDays or date, not both")
        case (false, false):
            throw RiskConfigurationError(field: object.fieldPath("ageInDays"), reason: "missing (or give date)")
        case (true, false):
            return UTCDay(daysSinceEpoch: today.daysSinceEpoch - Int64(try object.integer("ageInDays", in: 0...100_000)))
        case (false, true):
            switch try object.value("date") {
            case .string(let text):
                guard let day = UTCDay(isoDate: text) else {
                    throw RiskConfigurationError(field: object.fieldPath("date"),
                                                 reason: "\"\(text)\" is not a date such as 2020-12-01")
                }
                return day
            default:
                // Read as a number, not an Int: milliseconds pass Int's end on a 32-bit board. 1e15 ms is the year
                // 33658, past every real window.
                let milliseconds = try object.number("date", in: 0...1e15)
                return UTCDay(unixSeconds: Int64(milliseconds) / 1000)
            }
        }
    }
}
