/// What the indicator's outputs do at one moment: the LED lit or dark, the buzzer sounding or silent.
public struct IndicatorLevels: Equatable, Sendable {
    public var led: Bool
    public var buzzer: Bool

    public init(led: Bool, buzzer: Bool = false) {
        self.led = led
        self.buzzer = buzzer
    }

    public static let dark = IndicatorLevels(led: false)
    public static let lit = IndicatorLevels(led: true)
    /// LED lit and buzzer sounding.
    public static let beeping = IndicatorLevels(led: true, buzzer: true)
}
