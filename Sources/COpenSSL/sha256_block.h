// SHA-256's compression function, for the key schedule's HKDF (KeySchedule).
//
// HKDF-SHA256 with no salt and a 16-byte output is six compressions once the states after the zero salt's pad
// blocks are kept, but OpenSSL 3 deprecates the low-level SHA-256 calls and offers no supported way to resume a
// digest from a saved state without an allocation: EVP_MD_CTX_copy_ex frees and allocates the provider's
// context at every copy. Tools/bench/libcrypto-calls.c times each way; on one x86 core with SHA instructions an
// HKDF took 830 ns through two EVP_MAC contexts (as before), 630 through EVP_MD_CTX_copy_ex from contexts fed
// the salt's pads once, 425 through SHA256_Update/Final and 285 through SHA256_Transform on blocks padded in
// advance. The calls are wrapped here with the deprecation warning silenced for them alone, so every other
// deprecated call still warns.
#include <openssl/sha.h>
#include <stddef.h>

// Only `h`, the state words at the start of the struct, is read and carried between compressions: checked
// here at compile time, for every target's header (a key path, as Swift would check it, is not allowed in the
// board build).
_Static_assert(offsetof(SHA256_CTX, h) == 0, "SHA256_CTX starts with its state words");

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/// SHA-256's initial state.
static inline void enb_sha256_init(SHA256_CTX *state) { SHA256_Init(state); }

/// Compresses one 64-byte block into `state->h`; nothing else of `state` is read or written.
static inline void enb_sha256_block(SHA256_CTX *state, const unsigned char *block) { SHA256_Transform(state, block); }

#pragma GCC diagnostic pop
