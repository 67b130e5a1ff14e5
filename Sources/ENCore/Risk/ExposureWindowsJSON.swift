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
/// - The window's day: `ageInDays` (whole days before `today`, ≥ 0), `date` (either `"2020-12-01"` or
///   milliseconds since 1970) or `dateMillisSinceEpoch` as Android's API names it (the start of a UTC day);
///   exactly one of them.
/// - `reportType` 1–4 (confirmed test, clinical diagnosis, self report, recursive) and `infectiousness` 1–2
///   (standard, high) are the APIs' numbers: phones report no window for unknown, revoked or none.
///   `calibrationConfidence` 0–3, optional, default 0 (lowest).
/// - `scanInstances`: attenuations 0–255 dB, `typicalAttenuation` and `minAttenuation` or, as Android's API names
///   them (`ExposureWindow.apiJSON` writes these), `typicalAttenuationDb` and `minAttenuationDb`;
///   `secondsSinceLastScan` an integer as the phone reported it.
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
                typicalAttenuation: try attenuation("typicalAttenuation", of: instance),
                minAttenuation: try attenuation("minAttenuation", of: instance),
                secondsSinceLastScan: try instance.integer("secondsSinceLastScan", in: -86_400 * 366...86_400 * 366)))
        }
        return ExposureWindow(date: date, reportType: reportType, infectiousness: infectiousness,
                              scanInstances: instances, calibrationConfidence: confidence)
    }

    /// `name`, or Android's `nameDb` when `name` is absent.
    private static func attenuation(_ name: String, of instance: ConfigurationObject) throws(RiskConfigurationError) -> UInt8 {
        UInt8(try instance.integer(instance.contains(name) ? name : name + "Db", in: 0...255))
    }

    private static func day(of object: ConfigurationObject, today: UTCDay) throws(RiskConfigurationError) -> UTCDay {
        let given = ["ageInDays", "date", "dateMillisSinceEpoch"].filter { object.contains($0) }
        guard given.count == 1 else {
            throw RiskConfigurationError(field: object.fieldPath(given.last ?? "ageInDays"),
                                         reason: given.isEmpty ? "missing (or give date)"
                                             : "give one of ageInDays, date, dateMillisSinceEpoch")
        }
        switch given[0] {
        case "dateMillisSinceEpoch":
            return try day(millisecondsIn: "dateMillisSinceEpoch", of: object)
        case "ageInDays":
            return UTCDay(daysSinceEpoch: today.daysSinceEpoch - Int64(try object.integer("ageInDays", in: 0...100_000)))
        default:
            switch try object.value("date") {
            case .string(let text):
                guard let day = UTCDay(isoDate: text) else {
                    throw RiskConfigurationError(field: object.fieldPath("date"),
                                                 reason: "\"\(text)\" is not a date such as 2020-12-01")
                }
                return day
            default:
                return try day(millisecondsIn: "date", of: object)
            }
        }
    }

    private static func day(millisecondsIn name: String, of object: ConfigurationObject) throws(RiskConfigurationError) -> UTCDay {
        // Read as a number, not an Int: milliseconds pass Int's end on a 32-bit board. 1e15 ms is the year
        // 33658, past every real window.
        let milliseconds = try object.number(name, in: 0...1e15)
        return UTCDay(unixSeconds: Int64(milliseconds) / 1000)
    }
}
