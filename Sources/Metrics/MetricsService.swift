import Agent
import AgentBase
import EventLoop
import SystemIO

/// The badge's two ways out for its metrics, each following the configuration in force: the textfile for
/// node_exporter (`metrics.textfile`) and the HTTP endpoint (`metrics.listen`). Both off by default; off,
/// neither has a timer or a descriptor, so an idle badge wakes no more often.
package final class MetricsService {
    private let loop: any EventLoop
    private let control: AgentControl
    private let exposition: BadgeMetricsExposition
    private let log: Logger
    let textfile: MetricsTextfile
    package private(set) var server: MetricsHTTPServer?

    package init(loop: any EventLoop, control: AgentControl, exposition: BadgeMetricsExposition, log: Logger) {
        self.loop = loop
        self.control = control
        self.exposition = exposition
        self.log = log
        textfile = MetricsTextfile(loop: loop, control: control, log: log, exposition: exposition)
    }

    /// Takes the settings in force (at start, on `config set`, on SIGHUP).
    package func configure(_ configuration: Configuration) {
        textfile.configure(configuration)
        let text = configuration[.metricsListen]
        let wanted = IPv4Endpoint(text)
        guard wanted != server?.address else { return }
        server?.stop()
        server = nil
        guard let wanted else {
            if !text.isEmpty { log.error("metrics: metrics.listen \(text) is not an IPv4 address and port") }
            return
        }
        if !wanted.isLoopback {
            log.warn("metrics: serving on \(wanted), beyond this machine: anyone who reaches it reads whether the "
                     + "badge is on air and how many exposures it has")
        }
        let server = MetricsHTTPServer(address: wanted, loop: loop, log: log) { [control, exposition] in
            exposition.text(control.metrics())
        }
        do {
            try server.start()
            self.server = server
        } catch {
            log.error("metrics: cannot listen on \(wanted): \(error)")
        }
    }

    package func stop() {
        textfile.stop()
        server?.stop()
        server = nil
    }
}
