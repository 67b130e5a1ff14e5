/*
 * The ways libcrypto (OpenSSL 3) offers to compute what the key schedule computes per key, each timed alone:
 * HKDF-SHA256(TEK, no salt, "EN-RPIK", 16) and AES-128-ECB over 144 blocks under a new key. KeySchedule and
 * Tools/bench/match-reference.c use the cheapest of each; this program is why.
 *
 *   cc -O2 -o /tmp/libcrypto-calls Tools/bench/libcrypto-calls.c -lcrypto && /tmp/libcrypto-calls [keys]
 *
 * Every variant is checked against the first (EVP_MAC, as KeySchedule did before) and timed in this thread's
 * CPU time as the best of 15 rounds, each round timing every variant in turn, so a neighbour's load on a shared
 * machine falls on all of them alike. With OPENSSL_ia32cap="~0x200000200000000:~0x20000000" libcrypto leaves
 * its AES and SHA instructions aside, as on a Pi 3 or 4.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* the low-level SHA-256 calls are among the candidates */
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
static void store_be32(uint8_t *p, uint32_t x) { x = __builtin_bswap32(x); memcpy(p, &x, 4); }
static const uint8_t info[8] = "EN-RPIK\x01";

/* HKDF by two HMAC contexts, the salt's keyed once (KeySchedule before). */
static EVP_MAC_CTX *extract_mac, *expand_mac;
static void hkdf_mac(const uint8_t tek[16], uint8_t out[16]) {
    uint8_t prk[32], okm[32];
    size_t length;
    EVP_MAC_init(extract_mac, NULL, 0, NULL);
    EVP_MAC_update(extract_mac, tek, 16);
    EVP_MAC_final(extract_mac, prk, &length, 32);
    EVP_MAC_init(expand_mac, prk, 32, NULL);
    EVP_MAC_update(expand_mac, info, 8);
    EVP_MAC_final(expand_mac, okm, &length, 32);
    memcpy(out, okm, 16);
}

/* HKDF by SHA-256 through EVP: the salt's pad states copied from contexts fed once (EVP_MD_CTX_copy_ex frees
 * and allocates the provider's context at each copy), the PRK's pads hashed from the start. */
static EVP_MD_CTX *salt_inner_md, *salt_outer_md, *work_md;
static void hkdf_md_copy(const uint8_t tek[16], uint8_t out[16]) {
    uint8_t prk[32], hash[32], pad[64];
    unsigned length;
    EVP_MD_CTX_copy_ex(work_md, salt_inner_md);
    EVP_DigestUpdate(work_md, tek, 16);
    EVP_DigestFinal_ex(work_md, hash, &length);
    EVP_MD_CTX_copy_ex(work_md, salt_outer_md);
    EVP_DigestUpdate(work_md, hash, 32);
    EVP_DigestFinal_ex(work_md, prk, &length);
    for (int i = 0; i < 64; i++) pad[i] = (i < 32 ? prk[i] : 0) ^ 0x36;
    EVP_DigestInit_ex2(work_md, NULL, NULL);
    EVP_DigestUpdate(work_md, pad, 64);
    EVP_DigestUpdate(work_md, info, 8);
    EVP_DigestFinal_ex(work_md, hash, &length);
    for (int i = 0; i < 64; i++) pad[i] = (i < 32 ? prk[i] : 0) ^ 0x5c;
    EVP_DigestInit_ex2(work_md, NULL, NULL);
    EVP_DigestUpdate(work_md, pad, 64);
    EVP_DigestUpdate(work_md, hash, 32);
    EVP_DigestFinal_ex(work_md, hash, &length);
    memcpy(out, hash, 16);
}

/* HKDF by the low-level SHA-256 calls: the salt's pad states copied as structs, Update and Final. */
static SHA256_CTX salt_inner, salt_outer, initial;
static void hkdf_sha_update(const uint8_t tek[16], uint8_t out[16]) {
    uint8_t prk[32], hash[32], pad[64];
    SHA256_CTX c = salt_inner;
    SHA256_Update(&c, tek, 16);
    SHA256_Final(hash, &c);
    c = salt_outer;
    SHA256_Update(&c, hash, 32);
    SHA256_Final(prk, &c);
    for (int i = 0; i < 64; i++) pad[i] = (i < 32 ? prk[i] : 0) ^ 0x36;
    c = initial;
    SHA256_Update(&c, pad, 64);
    SHA256_Update(&c, info, 8);
    SHA256_Final(hash, &c);
    for (int i = 0; i < 64; i++) pad[i] = (i < 32 ? prk[i] : 0) ^ 0x5c;
    c = initial;
    SHA256_Update(&c, pad, 64);
    SHA256_Update(&c, hash, 32);
    SHA256_Final(hash, &c);
    memcpy(out, hash, 16);
}

/* HKDF by SHA-256's compression function on blocks padded in advance: six SHA256_Transform calls (KeySchedule). */
static uint8_t extract_block[64], extract_outer[64], prk_ipad[64], prk_opad[64], expand_block[64], expand_outer[64];
static void pad_length(uint8_t *block, int used, int total_bytes) {
    block[used] = 0x80;
    for (int i = 0; i < 8; i++) block[63 - i] = (uint8_t)((uint64_t)total_bytes * 8 >> (8 * i));
}
static void hkdf_transform(const uint8_t tek[16], uint8_t out[16]) {
    SHA256_CTX inner = salt_inner, outer = salt_outer;
    memcpy(extract_block, tek, 16);
    SHA256_Transform(&inner, extract_block);
    for (int i = 0; i < 8; i++) store_be32(extract_outer + 4 * i, inner.h[i]);
    SHA256_Transform(&outer, extract_outer);
    for (int i = 0; i < 8; i++) {
        store_be32(prk_ipad + 4 * i, outer.h[i] ^ 0x36363636);
        store_be32(prk_opad + 4 * i, outer.h[i] ^ 0x5c5c5c5c);
    }
    inner = outer = initial;
    SHA256_Transform(&inner, prk_ipad);
    SHA256_Transform(&outer, prk_opad);
    SHA256_Transform(&inner, expand_block);
    for (int i = 0; i < 8; i++) store_be32(expand_outer + 4 * i, inner.h[i]);
    SHA256_Transform(&outer, expand_outer);
    for (int i = 0; i < 4; i++) store_be32(out + 4 * i, outer.h[i]);
}

/* AES-128-ECB over 144 blocks under a new key. */
static EVP_CIPHER *ecb;
static EVP_CIPHER_CTX *cipher;
static uint8_t padded[144 * 16], rpis[144 * 16];
/* The cipher given again at every init, and the padding switched off (KeySchedule before). */
static void aes_init_with_cipher(const uint8_t key[16]) {
    int written;
    EVP_EncryptInit_ex2(cipher, ecb, key, NULL, NULL);
    EVP_CIPHER_CTX_set_padding(cipher, 0);
    EVP_EncryptUpdate(cipher, rpis, &written, padded, sizeof padded);
}
/* A NULL cipher: the context keeps its own, only the key changes. */
static void aes_init_null_cipher(const uint8_t key[16]) {
    int written;
    EVP_EncryptInit_ex2(cipher, NULL, key, NULL, NULL);
    EVP_EncryptUpdate(cipher, rpis, &written, padded, sizeof padded);
}
/* The same through the older EVP_EncryptInit_ex. */
static void aes_init_ex_null_cipher(const uint8_t key[16]) {
    int written;
    EVP_EncryptInit_ex(cipher, NULL, NULL, key, NULL);
    EVP_EncryptUpdate(cipher, rpis, &written, padded, sizeof padded);
}
/* The provider's own functions, found once through OSSL_PROVIDER_query_operation (KeySchedule). */
static OSSL_FUNC_cipher_encrypt_init_fn *provider_init;
static OSSL_FUNC_cipher_update_fn *provider_update;
static void *provider_context;
static void aes_provider(const uint8_t key[16]) {
    size_t written;
    provider_init(provider_context, key, 16, NULL, 0, NULL);
    provider_update(provider_context, rpis, &written, sizeof rpis, padded, sizeof padded);
}

static int provider_open(void) {
    const OSSL_PROVIDER *provider = EVP_CIPHER_get0_provider(ecb);
    int no_cache;
    const OSSL_ALGORITHM *a = OSSL_PROVIDER_query_operation(provider, OSSL_OP_CIPHER, &no_cache);
    OSSL_FUNC_cipher_newctx_fn *new_context = NULL;
    for (; a != NULL && a->algorithm_names != NULL; a++) {
        if (strncmp(a->algorithm_names, "AES-128-ECB:", 12) != 0) continue;
        for (const OSSL_DISPATCH *f = a->implementation; f->function_id != 0; f++) {
            if (f->function_id == OSSL_FUNC_CIPHER_NEWCTX) new_context = OSSL_FUNC_cipher_newctx(f);
            if (f->function_id == OSSL_FUNC_CIPHER_ENCRYPT_INIT) provider_init = OSSL_FUNC_cipher_encrypt_init(f);
            if (f->function_id == OSSL_FUNC_CIPHER_UPDATE) provider_update = OSSL_FUNC_cipher_update(f);
        }
        break;
    }
    if (new_context == NULL || provider_init == NULL || provider_update == NULL) return 0;
    provider_context = new_context(OSSL_PROVIDER_get0_provider_ctx(provider));
    return provider_context != NULL;
}

static void setup(void) {
    uint8_t zeros[32] = {0}, ipad[64], opad[64];
    EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    OSSL_PARAM digest[] = {OSSL_PARAM_construct_utf8_string("digest", "SHA256", 0), OSSL_PARAM_construct_end()};
    extract_mac = EVP_MAC_CTX_new(hmac);
    expand_mac = EVP_MAC_CTX_new(hmac);
    EVP_MAC_CTX_set_params(extract_mac, digest);
    EVP_MAC_CTX_set_params(expand_mac, digest);
    EVP_MAC_init(extract_mac, zeros, 32, NULL);

    memset(ipad, 0x36, 64);
    memset(opad, 0x5c, 64);
    EVP_MD *sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    salt_inner_md = EVP_MD_CTX_new();
    salt_outer_md = EVP_MD_CTX_new();
    work_md = EVP_MD_CTX_new();
    EVP_DigestInit_ex2(salt_inner_md, sha256, NULL);
    EVP_DigestUpdate(salt_inner_md, ipad, 64);
    EVP_DigestInit_ex2(salt_outer_md, sha256, NULL);
    EVP_DigestUpdate(salt_outer_md, opad, 64);
    EVP_DigestInit_ex2(work_md, sha256, NULL);

    SHA256_Init(&initial);
    salt_inner = salt_outer = initial;
    SHA256_Update(&salt_inner, ipad, 64);
    SHA256_Update(&salt_outer, opad, 64);
    pad_length(extract_block, 16, 64 + 16);
    pad_length(extract_outer, 32, 64 + 32);
    memset(prk_ipad, 0x36, 64);
    memset(prk_opad, 0x5c, 64);
    memcpy(expand_block, info, 8);
    pad_length(expand_block, 8, 64 + 8);
    pad_length(expand_outer, 32, 64 + 32);

    ecb = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
    cipher = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex2(cipher, ecb, zeros, NULL, NULL);
    EVP_CIPHER_CTX_set_padding(cipher, 0);
    for (int j = 0; j < 144; j++) {
        memcpy(padded + 16 * j, "EN-RPI\0\0\0\0\0\0", 12);
        uint32_t n = 2800000 + j;
        memcpy(padded + 16 * j + 12, &n, 4);
    }
    if (!provider_open()) {
        fprintf(stderr, "no AES-128-ECB from its provider\n");
        exit(1);
    }
}

typedef struct {
    const char *name;
    void (*hkdf)(const uint8_t *, uint8_t *);
} HKDF;
typedef struct {
    const char *name;
    void (*encrypt)(const uint8_t *);
} AES;

int main(int argc, char **argv) {
    long keys = argc > 1 ? atol(argv[1]) : 50000;
    setup();
    HKDF hkdfs[] = {
        {"EVP_MAC, two contexts", hkdf_mac},
        {"EVP_MD_CTX_copy_ex, EVP_Digest*", hkdf_md_copy},
        {"SHA256_Update/Final", hkdf_sha_update},
        {"SHA256_Transform, blocks padded", hkdf_transform},
    };
    AES aeses[] = {
        {"EVP_EncryptInit_ex2 with the cipher", aes_init_with_cipher},
        {"EVP_EncryptInit_ex2, NULL cipher", aes_init_null_cipher},
        {"EVP_EncryptInit_ex, NULL cipher", aes_init_ex_null_cipher},
        {"the provider's encrypt_init, update", aes_provider},
    };
    int hkdf_count = sizeof hkdfs / sizeof hkdfs[0], aes_count = sizeof aeses / sizeof aeses[0];
    uint8_t tek[16] = {0}, expected[16], out[16], expected_rpis[sizeof rpis];
    int ok = 1;
    for (int v = 0; v < hkdf_count; v++) {
        for (long k = 0; k < 1000; k++) {
            memcpy(tek, &k, sizeof k);
            hkdfs[0].hkdf(tek, expected);
            hkdfs[v].hkdf(tek, out);
            if (memcmp(out, expected, 16) != 0) ok = 0, fprintf(stderr, "%s disagrees\n", hkdfs[v].name);
        }
    }
    for (int v = 0; v < aes_count; v++) {
        aeses[0].encrypt(expected);
        memcpy(expected_rpis, rpis, sizeof rpis);
        memset(rpis, 0, sizeof rpis);
        aeses[v].encrypt(expected);
        if (memcmp(rpis, expected_rpis, sizeof rpis) != 0) ok = 0, fprintf(stderr, "%s disagrees\n", aeses[v].name);
    }
    uint64_t sink = 0;
    double best[16];
    int count = hkdf_count + aes_count;
    for (int v = 0; v < count; v++) best[v] = 1e9;
    for (int round = 0; round < 15; round++) {
        for (int v = 0; v < count; v++) {
            double start = cpu_seconds();
            for (long k = 0; k < keys; k++) {
                memcpy(tek, &k, sizeof k);
                if (v < hkdf_count) hkdfs[v].hkdf(tek, out), sink += out[0];
                else aeses[v - hkdf_count].encrypt(tek), sink += rpis[100];
            }
            double seconds = cpu_seconds() - start;
            if (seconds < best[v]) best[v] = seconds;
        }
    }
    printf("ns per key, best of 15 rounds of %ld keys\n", keys);
    for (int v = 0; v < count; v++) {
        printf("  %-5s %-38s %7.1f\n", v < hkdf_count ? "HKDF" : "AES", v < hkdf_count ? hkdfs[v].name : aeses[v - hkdf_count].name,
               best[v] / keys * 1e9);
    }
    return ok ? (sink == 42) : 1;
}
