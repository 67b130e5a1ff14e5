import CLinux

/// The Linux Bluetooth sockets behind the HCI user channel: exclusive raw access to one adapter, H4
/// packets one per read. Failures are the kernel's errno; the HCI module turns them into advice.
public enum HCIUserChannel {
    static let afBluetooth: Int32 = 31
    static let btprotoHCI: Int32 = 1
    static let hciChannelUser: UInt16 = 1
    /// _IOW('H', 202, int): take the adapter down so the kernel's own host stack lets go of it.
    static let hciDeviceDown: UInt = 0x4004_48CA
    /// _IOR('H', 211, int): struct hci_dev_info, whose `flags` (bit 0: HCI_UP) sit at byte 16.
    static let hciGetDeviceInfo: UInt = 0x8004_48D3

    /// Takes the adapter down if a host stack has it powered on; true when it was up (and is now down).
    public static func takeDown(adapter: UInt16) throws(SystemError) -> Bool {
        let control = socket(afBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), btprotoHCI)
        guard control >= 0 else { throw .last("socket") }
        defer { close(control) }
        let wasUp = isUp(control: control, adapter: adapter)
        // Best effort: binding reports the real problem if the adapter is still up and owned.
        return enb_ioctl_value(control, hciDeviceDown, Int32(adapter)) == 0 && wasUp
    }

    /// A non-blocking user channel socket bound to `adapter`.
    public static func open(adapter: UInt16) throws(SystemError) -> Int32 {
        let fd = socket(afBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                        btprotoHCI)
        guard fd >= 0 else { throw .last("socket") }
        // struct sockaddr_hci { sa_family_t hci_family; unsigned short hci_dev; unsigned short hci_channel; }
        var address: (UInt16, UInt16, UInt16) = (UInt16(afBluetooth), adapter, hciChannelUser)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 6) }
        }
        guard result == 0 else {
            let error = SystemError.last("bind")
            close(fd)
            throw error
        }
        return fd
    }

    /// Whether a host stack has the adapter powered on (the kernel reports one it keeps up only for its
    /// own set-up, about to power it off again, as down).
    static func isUp(control: Int32, adapter: UInt16) -> Bool {
        var info = [UInt8](repeating: 0, count: 128)
        info[0] = UInt8(adapter & 0xFF)
        info[1] = UInt8(adapter >> 8)
        let rc = info.withUnsafeMutableBytes { enb_ioctl_pointer(control, hciGetDeviceInfo, $0.baseAddress!) }
        return rc == 0 && info[16] & 1 != 0
    }

    /// The adapters the kernel has (`/sys/class/bluetooth`), for a message about one that is missing.
    public static func presentAdapters() -> [String] {
        let names = (try? PosixFileSystem().fileNames(in: "/sys/class/bluetooth")) ?? []
        // hciN only: hciN:M entries are connections, not adapters.
        return names.filter { $0.hasPrefix("hci") && $0.dropFirst(3).allSatisfy { $0.isNumber } }.sorted()
    }
}
