/// Why a simulation, or the demo on it, could not be set up: what was being done, and the error that stopped
/// it. One concrete type, as typed throws need (the board build, Embedded Swift, has no untyped throws).
package struct SimulationError: Error, CustomStringConvertible {
    package let description: String

    /// Runs `body`; if it fails, the error says what it was for.
    static func whileDoing<T, E: Error & CustomStringConvertible>(_ what: String, _ body: () throws(E) -> T)
        throws(SimulationError) -> T {
        do { return try body() } catch { throw SimulationError(description: "\(what): \(error)") }
    }
}
