@testable import Agent
import EventLoop
import Glibc
import SystemIO
import Testing

/// The systemd notification protocol, piece by piece (the whole agent under a NOTIFY_SOCKET is in
/// enbeaconTests/SystemdNotifyTests).
@Suite struct ServiceNotifierTests {
    @Test("the watchdog is pinged four times per WATCHDOG_USEC, and only by the process it names")
    func watchdogInterval() {
        #expect(ServiceNotifier.watchdogInterval(microseconds: "2000000", pid: nil, ownPID: 7) == .milliseconds(500))
        #expect(ServiceNotifier.watchdogInterval(microseconds: "2000000", pid: "7", ownPID: 7) == .milliseconds(500))
        #expect(ServiceNotifier.watchdogInterval(microseconds: "2000000", pid: "8", ownPID: 7) == nil)
        #expect(ServiceNotifier.watchdogInterval(microseconds: nil, pid: nil, ownPID: 7) == nil)
        #expect(ServiceNotifier.watchdogInterval(microseconds: "0", pid: nil, ownPID: 7) == nil)
        #expect(ServiceNotifier.watchdogInterval(microseconds: "soon", pid: nil, ownPID: 7) == nil)
    }

    @Test("ready needs the controller and a trusted clock; until then the status says what is missing")
    func status() {
        let noController = ServiceStatus(controllerReady: false, controllerProblem: "hci0: no such adapter",
                                         clockTrusted: true, exposureNotification: true, advertising: false)
        #expect(noController == ServiceStatus(ready: false, text: "waiting for the controller: hci0: no such adapter"))
        let noClock = ServiceStatus(controllerReady: true, controllerProblem: nil, clockTrusted: false,
                                    exposureNotification: true, advertising: false)
        #expect(!noClock.ready)
        #expect(noClock.text.hasPrefix("waiting for a trusted clock"))
        let on = ServiceStatus(controllerReady: true, controllerProblem: nil, clockTrusted: true,
                               exposureNotification: true, advertising: true)
        #expect(on == ServiceStatus(ready: true, text: "broadcasting and scanning"))
        let off = ServiceStatus(controllerReady: true, controllerProblem: nil, clockTrusted: true,
                                exposureNotification: false, advertising: false)
        #expect(off.ready)
    }

    @Test("datagrams reach a socket in the abstract namespace (NOTIFY_SOCKET=@name); bad paths are refused")
    func abstractSocket() throws {
        let name = "enbeacon-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in name.utf8.enumerated() { raw[i + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.utf8.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        try #require(bound == 0)
        let sender = try #require(SystemdNotifySocket(path: "@" + name))
        #expect(sender.send("READY=1\nSTATUS=test"))
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        #expect(n > 0 && String(decoding: buffer[0..<max(n, 0)], as: UTF8.self) == "READY=1\nSTATUS=test")

        #expect(SystemdNotifySocket(path: "") == nil)
        #expect(SystemdNotifySocket(path: "relative/notify") == nil)
        #expect(SystemdNotifySocket(path: "/" + String(repeating: "x", count: 200)) == nil)
    }
}
