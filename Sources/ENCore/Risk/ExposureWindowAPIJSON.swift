/// An exposure window as one JSON object named as Google's Android API names its getters (`ExposureWindow`:
/// `getDateMillisSinceEpoch`, `getReportType`, `getInfectiousness`, `getCalibrationConfidence`,
/// `getScanInstances`; `ScanInstance`: `getMinAttenuationDb`, `getTypicalAttenuationDb`,
/// `getSecondsSinceLastScan`), with the APIs' numbers for the enumerations, so a tool written for a phone's windows
/// reads the badge's:
///
/// ```json
/// {"dateMillisSinceEpoch":1588032000000,"reportType":1,"infectiousness":1,"calibrationConfidence":0,
///  "scanInstances":[{"minAttenuationDb":58,"typicalAttenuationDb":60,"secondsSinceLastScan":120}]}
/// ```
/// `ExposureWindowsJSON` reads it back (the instances' times, which the API does not give, become the day's midnight).
extension ExposureWindow {
    public var apiJSON: String {
        var object = JSONObject()
        object.integer("dateMillisSinceEpoch", date.unixSeconds * 1000)
        object.integer("reportType", reportType.rawValue)
        object.integer("infectiousness", infectiousness.rawValue)
        object.integer("calibrationConfidence", calibrationConfidence.rawValue)
        object.raw("scanInstances", JSON.array(scanInstances.map { instance in
            var item = JSONObject()
            item.integer("minAttenuationDb", instance.minAttenuation)
            item.integer("typicalAttenuationDb", instance.typicalAttenuation)
            item.integer("secondsSinceLastScan", instance.secondsSinceLastScan)
            return item.text
        }))
        return object.text
    }
}
