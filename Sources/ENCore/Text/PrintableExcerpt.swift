extension String {
    /// This text made safe to show in an error line: control characters (which could be terminal escape
    /// sequences arriving as line noise) become `?`, and it is cut to `limit` characters.
    public func printableExcerpt(limit: Int = 40) -> String {
        var out = String.UnicodeScalarView()
        var count = 0
        for scalar in unicodeScalars {
            if count == limit {
                out.append("…")
                break
            }
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            out.append(isControl ? "?" : scalar)
            count += 1
        }
        return String(out)
    }
}
