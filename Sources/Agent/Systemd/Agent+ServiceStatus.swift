import HCI

extension Agent {
    /// The agent's state as systemd is told it (`ServiceNotifier`).
    package var serviceStatus: ServiceStatus {
        ServiceStatus(controllerReady: driver.phase == .ready, controllerProblem: driver.lastProblem?.text,
                      clockTrusted: clock.isTrusted, exposureNotification: exposureNotificationEnabled,
                      advertising: radio.isOnAir)
    }
}
