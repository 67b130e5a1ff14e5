/// Where a simulated device stands on the virtual radio's floor plan, in metres.
///
/// Two dimensions are enough: the path-loss model only needs the distance between two devices, and
/// simulations move people around a room or a building floor, not up and down.
public struct RadioPosition: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let origin = RadioPosition(x: 0, y: 0)

    /// Straight-line distance in metres.
    public func distance(to other: RadioPosition) -> Double {
        let dx = other.x - x
        let dy = other.y - y
        return (dx * dx + dy * dy).squareRoot()
    }

    public var description: String { "(\(x) m, \(y) m)" }
}
