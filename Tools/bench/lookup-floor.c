/*
 * What a per-RPI filter test can cost beside the key schedule, measured without Swift.
 *
 * `enbeacon bench match` reports the matcher's time as a share of the key schedule alone. This program
 * reproduces that measurement in C: the libcrypto calls KeySchedule made per key when it was written
 * (HMAC-SHA256 twice for the RPIK, one AES-128-ECB call over 144 blocks), followed by 144 tests against a
 * filter holding the RPIs of one day, for several filter shapes. It gives the floor that any
 * implementation of those shapes reaches on this core, so a Swift figure can be compared with it. The key
 * schedule now costs about half as much (Tools/bench/match-reference.c has it, and `bench match
 * --reference` times the whole matcher against it), so the same tests weigh about twice as much beside it.
 *
 * The RPIs a shape lets through cost nothing here. In the matcher each one costs a lookup in the sorted
 * RPIs: a mispredicted branch and two loads that miss the cache (the prefix table and the RPIs). On the
 * machine where "one 1,024-entry table" measured 3.7 points faster than enbeacon's shape here, the two
 * came out level in `bench match` (112-115 % at 20,000 sightings): its 0.19 % of false positives, against
 * 0.07 %, gave back what its tests saved.
 *
 *   cc -O2 -o /tmp/lookup-floor Tools/bench/lookup-floor.c -lcrypto && /tmp/lookup-floor [RPIs per day]
 *
 * 1,670 RPIs per day is a 14-day store of 20,000 sightings (those near midnight count for two days);
 * 16,700 is one of 200,000. Each figure is the best of 25 rounds of 40,000 keys, for the baseline and the
 * matcher alike, so a neighbour's load on a shared machine does not enter it. Run it on a quiet machine.
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t seed = 1;
static uint64_t next_random(void) { /* SplitMix64 */
    uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
static uint32_t load32(const uint8_t *p) { uint32_t x; memcpy(&x, p, 4); return x; }

/* The filters. Each shape has an insert and a test; `words` and the tables are shared. */
static uint64_t *words, pair_patterns[512], patterns1024[1024];
static uint32_t word_mask, *bits, bit_mask;

/* enbeacon's shape: one 64-bit word (bytes 12-15), two bits from each of two 256-entry tables (bytes 8, 9). */
static int two_tables(const uint8_t *r) {
    return (words[load32(r + 12) & word_mask] | (pair_patterns[r[8]] & pair_patterns[256 + r[9]])) == ~0ULL;
}
static void insert_two_tables(const uint8_t *r) {
    words[load32(r + 12) & word_mask] |= ~(pair_patterns[r[8]] & pair_patterns[256 + r[9]]);
}
/* One load of the RPI: word from the low bits of bytes 12-15, a four-bit pattern from their top 10 bits. */
static int one_table(const uint8_t *r) {
    uint32_t x = load32(r + 12);
    return (words[x & word_mask] | patterns1024[x >> 22]) == ~0ULL;
}
static void insert_one_table(const uint8_t *r) {
    uint32_t x = load32(r + 12);
    words[x & word_mask] |= ~patterns1024[x >> 22];
}
/* A plain bit table (one bit per RPI, 64 KiB per day): two loads per test. */
static int bit_table(const uint8_t *r) {
    uint32_t x = load32(r + 12) & bit_mask;
    return (bits[x >> 5] >> (x & 31)) & 1;
}
static void insert_bit_table(const uint8_t *r) {
    uint32_t x = load32(r + 12) & bit_mask;
    bits[x >> 5] |= 1u << (x & 31);
}

static int no_test(const uint8_t *r) { (void)r; return 0; }
static void no_insert(const uint8_t *r) { (void)r; }

__attribute__((noinline)) static void candidate(uint64_t *count) { (*count)++; __asm__ volatile(""); }
#define SCREEN(name, test, unroll)                                                       \
    __attribute__((noinline)) static uint64_t name(const uint8_t *rpis, int count) {     \
        uint64_t candidates = 0;                                                          \
        _Pragma(unroll) for (int j = 0; j < count; j++)                                   \
            if (__builtin_expect(test(rpis + 16 * j), 0)) candidate(&candidates);         \
        return candidates;                                                                \
    }
SCREEN(screen_two_tables, two_tables, "GCC unroll 1")
SCREEN(screen_two_tables_x4, two_tables, "GCC unroll 4")
SCREEN(screen_one_table_x4, one_table, "GCC unroll 4")
SCREEN(screen_bit_table_x4, bit_table, "GCC unroll 4")
__attribute__((noinline)) static uint64_t screen_nothing(const uint8_t *rpis, int count) {
    __asm__ volatile("");
    return rpis[count];
}

/* The key schedule, as KeySchedule called libcrypto when this was written (two HMAC contexts). */
static EVP_MAC_CTX *extract, *expand;
static EVP_CIPHER_CTX *cipher;
static const EVP_CIPHER *ecb;
static uint8_t padded_intervals[144 * 16], rpis[144 * 16 + 1];
static void key_schedule(uint64_t key) {
    uint8_t tek[16], prk[32], rpik[32];
    size_t length;
    int written;
    memcpy(tek, &key, 8);
    memcpy(tek + 8, &key, 8);
    EVP_MAC_init(extract, NULL, 0, NULL);
    EVP_MAC_update(extract, tek, 16);
    EVP_MAC_final(extract, prk, &length, 32);
    EVP_MAC_init(expand, prk, 32, NULL);
    EVP_MAC_update(expand, (const uint8_t *)"EN-RPIK\x01", 8);
    EVP_MAC_final(expand, rpik, &length, 32);
    EVP_EncryptInit_ex2(cipher, ecb, rpik, NULL, NULL);
    EVP_CIPHER_CTX_set_padding(cipher, 0);
    EVP_EncryptUpdate(cipher, rpis, &written, padded_intervals, sizeof padded_intervals);
}

typedef struct {
    const char *name;
    void (*insert)(const uint8_t *);
    int (*test)(const uint8_t *);
    uint64_t (*screen)(const uint8_t *, int);
} Shape;

int main(int argc, char **argv) {
    int stored = argc > 1 ? atoi(argv[1]) : 1670;
    int word_count = 1;
    while (word_count * 64 < stored * 32) word_count *= 2; /* 32 to 64 bits per RPI, as in RPIFilter */
    word_mask = word_count - 1;
    words = aligned_alloc(64, word_count * 8);
    bit_mask = (1u << 19) - 1;
    bits = aligned_alloc(64, (bit_mask + 1) / 8);
    for (int i = 0; i < 512; i++) {
        uint64_t pair = 0;
        while (__builtin_popcountll(pair) < 2) pair |= 1ULL << ((i < 256 ? 0 : 32) + (next_random() & 31));
        pair_patterns[i] = ~pair;
    }
    for (int i = 0; i < 1024; i++) {
        uint64_t pattern = 0;
        while (__builtin_popcountll(pattern) < 4) pattern |= 1ULL << (next_random() & 63);
        patterns1024[i] = ~pattern;
    }
    uint8_t *day = malloc(stored * 16);
    for (int i = 0; i < stored * 2; i++) { uint64_t x = next_random(); memcpy(day + 8 * i, &x, 8); }
    for (int i = 0; i < (int)sizeof padded_intervals; i++) padded_intervals[i] = next_random();

    EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    OSSL_PARAM digest[] = {OSSL_PARAM_construct_utf8_string("digest", "SHA256", 0), OSSL_PARAM_construct_end()};
    uint8_t zeros[32] = {0};
    extract = EVP_MAC_CTX_new(hmac);
    expand = EVP_MAC_CTX_new(hmac);
    EVP_MAC_CTX_set_params(extract, digest);
    EVP_MAC_CTX_set_params(expand, digest);
    EVP_MAC_init(extract, zeros, 32, NULL); /* HKDF's empty salt */
    cipher = EVP_CIPHER_CTX_new();
    ecb = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);

    Shape shapes[] = {
        {"enbeacon's shape (two tables)", insert_two_tables, two_tables, screen_two_tables},
        {"the same, unrolled 4x", insert_two_tables, two_tables, screen_two_tables_x4},
        {"one 1,024-entry table, unrolled", insert_one_table, one_table, screen_one_table_x4},
        {"bit table 64 KiB, unrolled", insert_bit_table, bit_table, screen_bit_table_x4},
        {"no test (the floor)", no_insert, no_test, screen_nothing},
    };
    const long keys = 40000;
    uint64_t sink = 0;
    printf("%d RPIs in the day's filter (%d KiB for the word shapes)\n", stored, word_count * 8 / 1024);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        memset(words, 0, word_count * 8);
        memset(bits, 0, (bit_mask + 1) / 8);
        for (int i = 0; i < stored; i++) shapes[s].insert(day + 16 * i);
        long passed = 0, probes = 2000000;
        for (long p = 0; p < probes; p++) {
            uint64_t random[2] = {next_random(), next_random()};
            passed += shapes[s].test((const uint8_t *)random);
        }
        double baseline = 1e9, matcher = 1e9;
        for (int round = 0; round < 25; round++) {
            double start = cpu_seconds();
            for (long k = 0; k < keys; k++) { key_schedule(k); sink += rpis[100]; }
            double b = cpu_seconds() - start;
            start = cpu_seconds();
            for (long k = 0; k < keys; k++) { key_schedule(k); sink += shapes[s].screen(rpis, 144); }
            double m = cpu_seconds() - start;
            if (b < baseline) baseline = b;
            if (m < matcher) matcher = m;
        }
        printf("%-34s key schedule %4.0f ns, with the tests %4.0f ns: %5.1f %%, false positives %.3f %%\n",
               shapes[s].name, baseline / keys * 1e9, matcher / keys * 1e9, matcher / baseline * 100,
               100.0 * passed / probes);
    }
    return sink == 42;
}
