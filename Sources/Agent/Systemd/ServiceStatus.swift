/// What the agent tells systemd about itself: whether it is ready (`READY=1`, sent once) and one line of
/// status (`STATUS=`, shown by `systemctl status enbeacon`). Pure: derived from the agent's state.
///
/// Ready means the badge can do its job: the controller is up and the clock is trusted. Until then the
/// status line says what it waits for, which is what a technician looking at `systemctl status` needs.
package struct ServiceStatus: Equatable, Sendable {
    package var ready: Bool
    package var text: String

    init(ready: Bool, text: String) {
        self.ready = ready
        self.text = text
    }

    init(controllerReady: Bool, controllerProblem: String?, clockTrusted: Bool,
                exposureNotification: Bool, advertising: Bool) {
        if !controllerReady {
            self.init(ready: false, text: "waiting for the controller" + (controllerProblem.map { ": \($0)" } ?? ""))
        } else if !clockTrusted {
            self.init(ready: false, text: "waiting for a trusted clock (NTP, an RTC, or `enbeacon ctl time set`)")
        } else if !exposureNotification {
            self.init(ready: true, text: "Exposure Notification off (`enbeacon ctl en on`)")
        } else if advertising {
            self.init(ready: true, text: "broadcasting and scanning")
        } else {
            self.init(ready: true, text: "starting to broadcast")
        }
    }
}
