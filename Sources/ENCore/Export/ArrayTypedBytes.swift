extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws one error type. The standard library's version is
    /// `rethrows`, which widens any error to `any Error` and would break the typed errors here.
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }
        return try result.get()
    }
}
