import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// Opening the file descriptor behind each transport. Every failure becomes one line that says what
/// is wrong and what to do about it: a person at a serial console has nothing else to go on.
public enum TransportOpeners {
    static let afBluetooth: Int32 = 31
    static let btprotoHCI: Int32 = 1
    static let hciChannelUser: UInt16 = 1
    /// _IOW('H', 202, int): take the adapter down so the kernel's own host stack lets go of it.
    static let hciDeviceDown: UInt = 0x4004_48CA
    /// _IOR('H', 211, int): struct hci_dev_info, whose `flags` (bit 0: HCI_UP) sit at byte 16.
    static let hciGetDeviceInfo: UInt = 0x8004_48D3
    static let errnoRFKill: Int32 = 132
    static let errnoUsers: Int32 = 87

    /// A Linux HCI user channel socket: exclusive raw access to the adapter, H4 packets one per read.
    /// `notice` hears what a person should know although the open succeeded (an adapter taken over).
    public static func userChannel(adapter: UInt16, notice: (String) -> Void = { _ in }) throws(TransportError) -> Int32 {
        let name = "hci\(adapter)"
        let control = socket(afBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), btprotoHCI)
        guard control >= 0 else { throw userChannelError(errno, name, during: "socket") }
        // Best effort: binding reports the real problem if the adapter is still up and owned.
        let wasUp = isUp(control: control, adapter: adapter)
        if ioctl(control, hciDeviceDown, Int32(adapter)) == 0, wasUp {
            notice("\(name) was powered on by another host stack (bluetoothd?): taken down for enbeacon's exclusive "
                   + "use; `systemctl disable --now bluetooth` or `btmgmt --index \(adapter) power off` keeps it down")
        }
        close(control)

        let fd = socket(afBluetooth,
                        Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                        btprotoHCI)
        guard fd >= 0 else { throw userChannelError(errno, name, during: "socket") }
        // struct sockaddr_hci { sa_family_t hci_family; unsigned short hci_dev; unsigned short hci_channel; }
        var address: (UInt16, UInt16, UInt16) = (UInt16(afBluetooth), adapter, hciChannelUser)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 6) }
        }
        guard result == 0 else {
            let e = errno
            close(fd)
            throw userChannelError(e, name, during: "bind")
        }
        return fd
    }

    /// Whether a host stack has the adapter powered on (the kernel reports one it keeps up only for its
    /// own set-up, about to power it off again, as down).
    static func isUp(control: Int32, adapter: UInt16) -> Bool {
        var info = [UInt8](repeating: 0, count: 128)
        info[0] = UInt8(adapter & 0xFF)
        info[1] = UInt8(adapter >> 8)
        let rc = info.withUnsafeMutableBytes { ioctl(control, hciGetDeviceInfo, $0.baseAddress!) }
        return rc == 0 && info[16] & 1 != 0
    }

    /// The adapters the kernel has (`/sys/class/bluetooth`), for a message about one that is missing.
    static func presentAdapters() -> [String] {
        guard let directory = opendir("/sys/class/bluetooth") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            // hciN only: hciN:M entries are connections, not adapters.
            if name.hasPrefix("hci"), name.dropFirst(3).allSatisfy(\.isNumber) { names.append(name) }
        }
        return names.sorted()
    }

    static func userChannelError(_ e: Int32, _ name: String, during call: String,
                                 adapters: @autoclosure () -> [String] = presentAdapters()) -> TransportError {
        switch e {
        case EBUSY, errnoUsers:
            return .unavailable("\(name) is in use by another program through its HCI user channel (another enbeacon, "
                                + "btproxy, a Bumble bridge) or still being set up by the kernel: stop that program")
        case EPERM, EACCES:
            return .unavailable("\(name): permission denied: the HCI user channel needs CAP_NET_ADMIN: run as root, "
                                + "through Board/enbeacon.service (it grants it), or `setcap cap_net_admin+ep enbeacon`")
        case ENODEV:
            let present = adapters()
            guard present.isEmpty else {
                return .unavailable("\(name): no such adapter (this machine has \(present.joined(separator: ", ")))")
            }
            return .unavailable("\(name): no such adapter, and no Bluetooth adapter at all: load its driver (hci_uart "
                                + "for a UART controller, btusb for a USB dongle) and check the wiring; "
                                + "`ls /sys/class/bluetooth` lists the adapters")
        case errnoRFKill:
            return .unavailable("\(name) is blocked by rfkill: run `rfkill unblock bluetooth`")
        case EAFNOSUPPORT:
            return .unavailable("this kernel has no Bluetooth support loaded: run `modprobe bluetooth` "
                                + "(and the adapter's driver, e.g. hci_uart or btusb)")
        default:
            return .unavailable("\(name): \(call) failed: \(errorText(e))")
        }
    }

    /// A serial line in raw mode: 8N1, no echo, no line discipline, optional RTS/CTS.
    public static func uart(path: String, baud: Int, flowControl: Bool) throws(TransportError) -> Int32 {
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            switch e {
            case ENOENT: throw .unavailable("\(path): no such device: check the cable and the board's UART overlay")
            case EACCES: throw .unavailable("\(path): permission denied: add the user to the dialout group or run as root")
            case EBUSY: throw .unavailable("\(path) is busy: another program (hciattach, a getty) holds it")
            default: throw .unavailable("\(path): \(errorText(e))")
            }
        }
        do {
            try SerialLine.configureRaw(fd: fd, path: path, baud: baud, flowControl: flowControl)
        } catch {
            close(fd)
            throw .unavailable("\(error)")
        }
        return fd
    }

    /// Starts a non-blocking TCP connection; the caller learns the outcome when the socket turns writable
    /// (`connectionResult`). Name resolution uses getaddrinfo, which for the numeric addresses and
    /// `localhost` that H4-over-TCP setups use answers without touching the network.
    public static func tcpConnect(host: String, port: UInt16) throws(TransportError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw .unavailable("tcp:\(host):\(port): cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let ai = entry {
            let fd = socket(ai.pointee.ai_family,
                            ai.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                            ai.pointee.ai_protocol)
            if fd >= 0 {
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                if connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                    return fd
                }
                lastError = errno
                close(fd)
            }
            entry = ai.pointee.ai_next
        }
        throw .unavailable("tcp:\(host):\(port): \(errorText(lastError))")
    }

    /// After a non-blocking connect's socket became writable: nil when connected, else the failure.
    public static func connectionResult(fd: Int32, host: String, port: UInt16) -> TransportError? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
            return .unavailable("tcp:\(host):\(port): \(errorText(errno))")
        }
        return error == 0 ? nil : .unavailable("tcp:\(host):\(port): \(errorText(error))")
    }

    static func errorText(_ e: Int32) -> String { String(cString: strerror(e)) }
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
