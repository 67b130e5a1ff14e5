import Glibc
@testable import HCI
import SystemIO
import Testing

@Suite("Transport spec and openers")
struct TransportSpecTests {
    // MARK: parsing

    @Test("valid specs parse to what they say", arguments: [
        ("virtual", TransportSpec.virtual),
        ("user:hci0", .userChannel(adapter: 0)),
        ("user:hci12", .userChannel(adapter: 12)),
        ("uart:/dev/ttyAMA0", .uart(path: "/dev/ttyAMA0", baud: 115_200, flowControl: false)),
        ("uart:/dev/ttyUSB0,921600", .uart(path: "/dev/ttyUSB0", baud: 921_600, flowControl: false)),
        ("uart:/dev/ttyS0,rtscts", .uart(path: "/dev/ttyS0", baud: 115_200, flowControl: true)),
        ("uart:/dev/ttyS0,3000000,rtscts", .uart(path: "/dev/ttyS0", baud: 3_000_000, flowControl: true)),
        ("uart:/dev/ttyS0,rtscts,460800", .uart(path: "/dev/ttyS0", baud: 460_800, flowControl: true)),
        ("uart:/dev/serial/by-id/usb-Nordic_nRF52840-if00", .uart(path: "/dev/serial/by-id/usb-Nordic_nRF52840-if00",
                                                                  baud: 115_200, flowControl: false)),
        ("tcp:127.0.0.1:9000", .tcp(host: "127.0.0.1", port: 9000)),
        ("tcp:localhost:1", .tcp(host: "localhost", port: 1)),
        ("tcp:bumble.local:65535", .tcp(host: "bumble.local", port: 65535)),
        ("tcp:::1:9000", .tcp(host: "::1", port: 9000)),
        ("tcp:[::1]:9000", .tcp(host: "::1", port: 9000)),
    ])
    func valid(text: String, spec: TransportSpec) throws {
        #expect(try TransportSpec(parsing: text) == spec)
        // What `description` prints parses back to the same spec (logs and `hci info` show it).
        #expect(try TransportSpec(parsing: spec.description) == spec)
    }

    @Test("invalid specs are refused with a message that shows the accepted form", arguments: [
        ("", TransportSpecError.unknownKind("")),
        ("hci0", .unknownKind("hci0")),
        ("bluetooth:hci0", .unknownKind("bluetooth:hci0")),
        ("USER:hci0", .unknownKind("USER:hci0")),
        ("virtual:1", .unknownKind("virtual:1")),
        ("user:", .badAdapter("")),
        ("user:hci", .badAdapter("hci")),
        ("user:0", .badAdapter("0")),
        ("user:hcix", .badAdapter("hcix")),
        ("user:hci-1", .badAdapter("hci-1")),
        ("user:hci+1", .badAdapter("hci+1")),
        ("user:hci65536", .badAdapter("hci65536")),
        ("user:hci0 ", .badAdapter("hci0 ")),
        ("uart:", .badDevicePath("")),
        ("uart:ttyS0", .badDevicePath("ttyS0")),
        ("uart:,115200", .badDevicePath(",115200")),
        ("uart:/dev/ttyS0,", .badUARTOption("")),
        ("uart:/dev/ttyS0,12345", .badUARTOption("12345")),
        ("uart:/dev/ttyS0,fast", .badUARTOption("fast")),
        ("uart:/dev/ttyS0,+115200", .badUARTOption("+115200")),
        ("uart:/dev/ttyS0,crtscts", .badUARTOption("crtscts")),
        ("tcp:", .badHostPort("")),
        ("tcp:9000", .badHostPort("9000")),
        ("tcp::9000", .badHostPort(":9000")),
        ("tcp:host:", .badHostPort("host:")),
        ("tcp:host:0", .badHostPort("host:0")),
        ("tcp:host:65536", .badHostPort("host:65536")),
        ("tcp:host:port", .badHostPort("host:port")),
        ("tcp:host:+80", .badHostPort("host:+80")),
        ("tcp:[]:80", .badHostPort("[]:80")),
    ])
    func invalid(text: String, error: TransportSpecError) {
        #expect(throws: error) { try TransportSpec(parsing: text) }
    }

    @Test("error messages quote the input and say what was expected")
    func errorMessages() {
        #expect(TransportSpecError.unknownKind("hci0").description
                == "'hci0': expected user:hciN, uart:/dev/DEVICE[,BAUD][,rtscts], tcp:HOST:PORT or virtual")
        #expect(TransportSpecError.badAdapter("0").description == "'0': expected an adapter name like hci0")
        #expect(TransportSpecError.badDevicePath("ttyS0").description
                == "'ttyS0': expected an absolute device path like /dev/ttyAMA0")
        #expect(TransportSpecError.badHostPort("host:0").description == "'host:0': expected HOST:PORT with a port 1-65535")
        let baud = TransportSpecError.badUARTOption("12345").description
        #expect(baud.hasPrefix("'12345': expected a baud rate (9600, 19200, "))
        #expect(baud.hasSuffix("4000000) or rtscts"))
    }

    @Test("every baud the parser accepts is one termios can set")
    func baudsMatchTermios() {
        for baud in TransportSpec.supportedBauds {
            #expect(SerialLine.speedConstant(baud) != nil, "\(baud)")
        }
        #expect(SerialLine.speedConstant(12345) == nil)
    }

    // MARK: what a failed open tells the person at the console

    @Test("user channel errors become one line that says what to do", arguments: [
        (EBUSY, "hci0 is in use by another program through its HCI user channel (another enbeacon, btproxy, "
            + "a Bumble bridge) or still being set up by the kernel: stop that program"),
        (87, "hci0 is in use by another program through its HCI user channel (another enbeacon, btproxy, "
            + "a Bumble bridge) or still being set up by the kernel: stop that program"),
        (EPERM, "hci0: permission denied: the HCI user channel needs CAP_NET_ADMIN: run as root, through "
            + "Board/enbeacon.service (it grants it), or `setcap cap_net_admin+ep enbeacon`"),
        (EACCES, "hci0: permission denied: the HCI user channel needs CAP_NET_ADMIN: run as root, through "
            + "Board/enbeacon.service (it grants it), or `setcap cap_net_admin+ep enbeacon`"),
        (ENODEV, "hci0: no such adapter, and no Bluetooth adapter at all: load its driver (hci_uart for a UART "
            + "controller, btusb for a USB dongle) and check the wiring; `ls /sys/class/bluetooth` lists the adapters"),
        (132, "hci0 is blocked by rfkill: run `rfkill unblock bluetooth`"),
        (EAFNOSUPPORT, "this kernel has no Bluetooth support loaded: run `modprobe bluetooth` (and the adapter's "
            + "driver, e.g. hci_uart or btusb)"),
    ] as [(Int32, String)])
    func userChannelErrors(code: Int32, message: String) {
        #expect(TransportOpeners.userChannelError(code, "hci0", during: "bind", adapters: []) == .unavailable(message))
    }

    @Test("a missing adapter on a machine with others names them")
    func userChannelOtherAdapters() {
        #expect(TransportOpeners.userChannelError(ENODEV, "hci0", during: "bind", adapters: ["hci1", "hci2"])
            == .unavailable("hci0: no such adapter (this machine has hci1, hci2)"))
    }

    @Test("an errno without advice still names the adapter, the call and the system's words")
    func userChannelOtherError() {
        let error = TransportOpeners.userChannelError(EIO, "hci3", during: "bind")
        #expect(error == .unavailable("hci3: bind failed: \(String(cString: strerror(EIO)))"))
    }

    @Test("rfkill's and too-many-users' errno are the kernel's ERFKILL and EUSERS")
    func rfkillNumber() {
        #expect(Errno.rfkilled == ERFKILL)
        #expect(Errno.tooManyUsers == EUSERS)
    }

    @Test("opening a user channel on this machine fails with one actionable line, not a crash")
    func userChannelHere() {
        // No machine here has a Bluetooth adapter (TESTING.md): whichever way it fails, it is one line.
        do {
            let fd = try TransportOpeners.userChannel(adapter: 63)
            close(fd)
            Issue.record("hci63 opened; this test expects a machine without that adapter")
        } catch {
            #expect(!error.description.isEmpty)
            #expect(!error.description.contains("\n"))
            let advised = ["rfkill", "root", "in use", "no such adapter", "no Bluetooth support"]
            #expect(advised.contains { error.description.contains($0) }, "\(error)")
        }
    }

    @Test("UART open errors: a missing device and a file that is not a serial port")
    func uartErrors() {
        #expect(throws: TransportError.unavailable(
            "/dev/enbeacon-no-such-tty: no such device: check the cable and the board's UART overlay")) {
            try TransportOpeners.uart(path: "/dev/enbeacon-no-such-tty", baud: 115_200, flowControl: false)
        }
        do {
            let fd = try TransportOpeners.uart(path: "/dev/null", baud: 115_200, flowControl: false)
            close(fd)
            Issue.record("/dev/null accepted as a serial port")
        } catch {
            #expect(error.description.hasPrefix("/dev/null is not a serial device: "), "\(error)")
        }
    }
}
