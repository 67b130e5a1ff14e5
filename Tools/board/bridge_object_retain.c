// The runtime's contract for swift_bridgeObjectRetain(_n): retain the object a bridge value points to and
// return the bridge value itself, every bit of it. Compiled code relies on the return value (the aarch64
// code does: it passes the result on instead of keeping the argument). Embedded Swift 6.3's runtime breaks
// that contract: it returns the value with the bridge bits masked off (fixed upstream in
// swiftlang/swift#91151, after 6.3). A small string keeps its last bytes and its count in those bits, so on
// aarch64 `enbeacon run --data /tmp/d` met the path "/tmp/d" garbled and crashed reading it.
//
// The module objects define these entry points weakly (each carries a copy of the embedded runtime); this
// strong definition, linked into every 64-bit board binary, takes their place. The bit layout is the
// embedded runtime's for 64-bit targets: bit 63 marks a value that is not a counted object (a small string,
// an immortal one); the object's address is the rest with the spare bits 60-62 and 0-2 cleared. 32-bit
// targets' strings use no bridge values, and their binaries have no caller of these.
#include <stdint.h>

#if UINTPTR_MAX == 0xffffffffffffffffu
void *swift_retain_n(void *object, uint32_t n);

static const uintptr_t not_counted_bit = (uintptr_t)1 << 63;
static const uintptr_t object_address_mask = 0x8ffffffffffffff8u;

void *swift_bridgeObjectRetain_n(void *bridge, uint32_t n) {
    uintptr_t bits = (uintptr_t)bridge;
    if ((bits & not_counted_bit) == 0 && (bits & object_address_mask) != 0) {
        swift_retain_n((void *)(bits & object_address_mask), n);
    }
    return bridge;
}

void *swift_bridgeObjectRetain(void *bridge) {
    return swift_bridgeObjectRetain_n(bridge, 1);
}
#endif
