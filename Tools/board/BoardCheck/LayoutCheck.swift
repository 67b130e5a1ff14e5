import CBoardLibc
import COpenSSL
import CZlib

/// The C structs ENCore passes to zlib and libcrypto (z_stream, OSSL_PARAM) and off_t, as Swift sees them
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

    /// C's sizeof includes the tail padding, which is Swift's stride.
    static func layout<T>(_ type: T.Type, _ name: String, into figures: inout [String: Int]) {
        figures[name + " size"] = MemoryLayout<T>.stride
        figures[name + " alignment"] = MemoryLayout<T>.alignment
    }

    /// The address of a field, taken in place (`&s.pointee.field` of a C struct is the field's own storage).
    static func address(_ field: UnsafeRawPointer) -> Int { Int(bitPattern: field) }
}
