import SystemIO

/// Opening the file descriptor behind each transport. Every failure becomes one line that says what
/// is wrong and what to do about it: a person at a serial console has nothing else to go on.
public enum TransportOpeners {
    /// A Linux HCI user channel socket: exclusive raw access to the adapter, H4 packets one per read.
    /// `notice` hears what a person should know although the open succeeded (an adapter taken over).
    public static func userChannel(adapter: UInt16, notice: (String) -> Void = { _ in }) throws(TransportError) -> Int32 {
        let name = "hci\(adapter)"
        do {
            if try HCIUserChannel.takeDown(adapter: adapter) {
                notice("\(name) was powered on by another host stack (bluetoothd?): taken down for enbeacon's exclusive "
                       + "use; `systemctl disable --now bluetooth` or `btmgmt --index \(adapter) power off` keeps it down")
            }
            return try HCIUserChannel.open(adapter: adapter)
        } catch {
            throw userChannelError(error.code, name, during: error.call)
        }
    }

    static func userChannelError(_ e: Int32, _ name: String, during call: String,
                                 adapters: @autoclosure () -> [String] = HCIUserChannel.presentAdapters()) -> TransportError {
        switch e {
        case Errno.busy, Errno.tooManyUsers:
            return .unavailable("\(name) is in use by another program through its HCI user channel (another enbeacon, "
                                + "btproxy, a Bumble bridge) or still being set up by the kernel: stop that program")
        case Errno.notPermitted, Errno.accessDenied:
            return .unavailable("\(name): permission denied: the HCI user channel needs CAP_NET_ADMIN: run as root, "
                                + "through Board/enbeacon.service (it grants it), or `setcap cap_net_admin+ep enbeacon`")
        case Errno.noDevice:
            let present = adapters()
            guard present.isEmpty else {
                return .unavailable("\(name): no such adapter (this machine has \(present.joined(separator: ", ")))")
            }
            return .unavailable("\(name): no such adapter, and no Bluetooth adapter at all: load its driver (hci_uart "
                                + "for a UART controller, btusb for a USB dongle) and check the wiring; "
                                + "`ls /sys/class/bluetooth` lists the adapters")
        case Errno.rfkilled:
            return .unavailable("\(name) is blocked by rfkill: run `rfkill unblock bluetooth`")
        case Errno.addressFamilyNotSupported:
            return .unavailable("this kernel has no Bluetooth support loaded: run `modprobe bluetooth` "
                                + "(and the adapter's driver, e.g. hci_uart or btusb)")
        default:
            return .unavailable("\(name): \(call) failed: \(SystemError(call: call, code: e).reason)")
        }
    }

    /// A serial line in raw mode: 8N1, no echo, no line discipline, optional RTS/CTS.
    public static func uart(path: String, baud: Int, flowControl: Bool) throws(TransportError) -> Int32 {
        let fd: Int32
        do {
            fd = try Posix.open(path, .readWrite, [.noControllingTerminal, .nonBlocking])
        } catch {
            switch error.code {
            case Errno.noEntry: throw .unavailable("\(path): no such device: check the cable and the board's UART overlay")
            case Errno.accessDenied: throw .unavailable("\(path): permission denied: add the user to the dialout group or run as root")
            case Errno.busy: throw .unavailable("\(path) is busy: another program (hciattach, a getty) holds it")
            default: throw .unavailable("\(path): \(error.reason)")
            }
        }
        do {
            try SerialLine.configureRaw(fd: fd, path: path, baud: baud, flowControl: flowControl)
        } catch {
            DescriptorIO.close(fd)
            throw .unavailable("\(error)")
        }
        return fd
    }

    /// Starts a non-blocking TCP connection; the caller learns the outcome when the socket turns writable
    /// (`connectionResult`).
    public static func tcpConnect(host: String, port: UInt16) throws(TransportError) -> Int32 {
        do {
            return try TCPConnection.start(host: host, port: port)
        } catch .unresolved(let text) {
            throw .unavailable("tcp:\(host):\(port): cannot resolve \(host): \(text)")
        } catch {
            throw .unavailable("tcp:\(host):\(port): \(error)")
        }
    }

    /// After a non-blocking connect's socket became writable: nil when connected, else the failure.
    public static func connectionResult(fd: Int32, host: String, port: UInt16) -> TransportError? {
        TCPConnection.result(of: fd).map { .unavailable("tcp:\(host):\(port): \($0.reason)") }
    }
}

/// A transport that cannot be opened or has failed; the text is for a person.
public enum TransportError: Error, Equatable, CustomStringConvertible {
    case unavailable(String)
    case closed(String)

    public var description: String {
        switch self {
        case .unavailable(let s), .closed(let s): s
        }
    }
}
