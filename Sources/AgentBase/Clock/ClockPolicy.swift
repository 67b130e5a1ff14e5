/// How a board knows its wall clock is right (the `clock` key of a board profile).
package enum ClockPolicy: String, Equatable, Sendable, CaseIterable {
    /// Wait for NTP: the kernel's synchronisation flag or systemd-timesyncd's marker (the default for
    /// boards without a real-time clock, e.g. a Raspberry Pi).
    case ntp
    /// A battery-backed RTC keeps time across power cuts: trusted from boot.
    case rtc
    /// Trusted by declaration (the virtual board, whose clock is the host's).
    case trusted
}
