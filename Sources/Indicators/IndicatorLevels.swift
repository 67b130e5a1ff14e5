/// What the indicator's outputs do at one moment: the LED lit or dark, the buzzer sounding or silent.
package struct IndicatorLevels: Equatable, Sendable {
    package var led: Bool
    package var buzzer: Bool

    init(led: Bool, buzzer: Bool = false) {
        self.led = led
        self.buzzer = buzzer
    }

    static let dark = IndicatorLevels(led: false)
    static let lit = IndicatorLevels(led: true)
    /// LED lit and buzzer sounding.
    package static let beeping = IndicatorLevels(led: true, buzzer: true)
}
