import CBoardLibc
import CLinux
import COpenSSL
import CZlib

/// The C structs ENCore passes to zlib and libcrypto (z_stream, OSSL_PARAM), off_t, and those SystemIO hands
/// the kernel and libc (stat, timespec, termios, the GPIO uAPI's, …), as Swift sees them
/// through the target's headers, against the target gcc's own sizeof, _Alignof and offsetof (c_layouts.c):
/// struct layouts differ between CPUs, and a clang reading headers for a `none` triple could lay one out
/// unlike the compiler that built the libraries. One check per figure, by name.
enum LayoutCheck {
    static func run() -> Tally {
        var swift: [String: Int] = [:]
        layout(z_stream.self, "z_stream", into: &swift)
        var stream = z_stream()
        withUnsafeMutablePointer(to: &stream) { s in
            let offsets = [("next_in", address(&s.pointee.next_in)), ("avail_in", address(&s.pointee.avail_in)),
                           ("total_in", address(&s.pointee.total_in)), ("next_out", address(&s.pointee.next_out)),
                           ("avail_out", address(&s.pointee.avail_out)), ("total_out", address(&s.pointee.total_out)),
                           ("msg", address(&s.pointee.msg)), ("state", address(&s.pointee.state)),
                           ("zalloc", address(&s.pointee.zalloc)), ("zfree", address(&s.pointee.zfree)),
                           ("opaque", address(&s.pointee.opaque)), ("data_type", address(&s.pointee.data_type)),
                           ("adler", address(&s.pointee.adler)), ("reserved", address(&s.pointee.reserved))]
            for (field, at) in offsets { swift["z_stream." + field] = at - Int(bitPattern: s) }
        }
        layout(OSSL_PARAM.self, "OSSL_PARAM", into: &swift)
        var param = OSSL_PARAM()
        withUnsafeMutablePointer(to: &param) { p in
            let offsets = [("key", address(&p.pointee.key)), ("data_type", address(&p.pointee.data_type)),
                           ("data", address(&p.pointee.data)), ("data_size", address(&p.pointee.data_size)),
                           ("return_size", address(&p.pointee.return_size))]
            for (field, at) in offsets { swift["OSSL_PARAM." + field] = at - Int(bitPattern: p) }
        }
        layout(off_t.self, "off_t", into: &swift)
        systemLayouts(into: &swift)

        var tally = Tally()
        for i in 0..<board_c_layout_count() {
            let name = String(cString: board_c_layout_name(i))
            let gcc = Int(board_c_layout_value(i))
            let ours = swift.removeValue(forKey: name)
            tally.check(ours == gcc, "\(name): gcc \(gcc), Swift \(ours.map { "\($0)" } ?? "none")")
        }
        for name in swift.keys.sorted() { tally.check(false, "\(name): not measured by gcc") }
        return tally
    }

    private static func systemLayouts(into swift: inout [String: Int]) {
        layout(time_t.self, "time_t", into: &swift)
        layout(timespec.self, "struct timespec", into: &swift)
        layout(stat.self, "struct stat", into: &swift)
        layout(statvfs.self, "struct statvfs", into: &swift)
        layout(pollfd.self, "struct pollfd", into: &swift)
        layout(sockaddr_un.self, "struct sockaddr_un", into: &swift)
        layout(sockaddr_in.self, "struct sockaddr_in", into: &swift)
        layout(addrinfo.self, "struct addrinfo", into: &swift)
        layout(termios.self, "struct termios", into: &swift)
        layout(winsize.self, "struct winsize", into: &swift)
        layout(signalfd_siginfo.self, "struct signalfd_siginfo", into: &swift)
        layout(sigset_t.self, "sigset_t", into: &swift)
        layout(gpiochip_info.self, "struct gpiochip_info", into: &swift)
        layout(gpio_v2_line_info.self, "struct gpio_v2_line_info", into: &swift)
        layout(gpio_v2_line_event.self, "struct gpio_v2_line_event", into: &swift)
        var time = timespec()
        offsets(of: &time, "struct timespec", into: &swift) { t in [("tv_nsec", address(&t.pointee.tv_nsec))] }
        var status = stat()
        offsets(of: &status, "struct stat", into: &swift) { s in [("st_mode", address(&s.pointee.st_mode)), ("st_size", address(&s.pointee.st_size))] }
        var volume = statvfs()
        offsets(of: &volume, "struct statvfs", into: &swift) { v in [("f_bsize", address(&v.pointee.f_bsize)), ("f_bavail", address(&v.pointee.f_bavail))] }
        var info = addrinfo()
        offsets(of: &info, "struct addrinfo", into: &swift) { a in [("ai_addr", address(&a.pointee.ai_addr)), ("ai_next", address(&a.pointee.ai_next))] }
        var terminal = termios()
        offsets(of: &terminal, "struct termios", into: &swift) { t in [("c_lflag", address(&t.pointee.c_lflag)), ("c_cc", address(&t.pointee.c_cc))] }
        var entry = dirent()
        offsets(of: &entry, "struct dirent", into: &swift) { d in [("d_name", address(&d.pointee.d_name))] }
        var event = gpio_v2_line_event()
        offsets(of: &event, "struct gpio_v2_line_event", into: &swift) { e in
            [("timestamp_ns", address(&e.pointee.timestamp_ns)), ("id", address(&e.pointee.id))]
        }
    }

    /// The offsets of `value`'s fields, by name, from addresses taken in place.
    private static func offsets<T>(of value: inout T, _ name: String, into figures: inout [String: Int],
                                   _ fields: (UnsafeMutablePointer<T>) -> [(String, Int)]) {
        withUnsafeMutablePointer(to: &value) { pointer in
            for (field, at) in fields(pointer) { figures[name + "." + field] = at - Int(bitPattern: pointer) }
        }
    }

    /// C's sizeof includes the tail padding, which is Swift's stride.
    static func layout<T>(_ type: T.Type, _ name: String, into figures: inout [String: Int]) {
        figures[name + " size"] = MemoryLayout<T>.stride
        figures[name + " alignment"] = MemoryLayout<T>.alignment
    }

    /// The address of a field, taken in place (`&s.pointee.field` of a C struct is the field's own storage).
    static func address(_ field: UnsafeRawPointer) -> Int { Int(bitPattern: field) }
}
