/*
 * bench match's C reference: the key schedule and the matcher written the fastest way we know in C, on the
 * same libcrypto, so `enbeacon bench match --reference` can print Swift's figures as a share of it, measured
 * in the same run, on the same core, over the same keys and sightings.
 *
 * The bench compiles this file at run time (cc -O2 -shared -fPIC ... -lcrypto: gcc and libssl-dev are all it
 * needs), loads it with dlopen and calls it slice by slice between its own Swift loops, on the same thread and
 * the same clock (the thread's CPU time), so a neighbour's load falls on both alike.
 *
 * The bench draws each slice's keys before it times anything, and hands them over as an array of `Key`. Per key,
 * what the matcher has to do and nothing else:
 *   - the checks every key goes through (embargo, too old, a filter for its day);
 *   - RPIK = HKDF-SHA256(TEK, no salt, "EN-RPIK", 16): six calls of SHA-256's compression function
 *     (SHA256_Transform). The states after the zero salt's inner and outer pad blocks are computed once, and
 *     every block is laid out already padded as SHA-256 pads its message, so only the TEK, the PRK's pads and
 *     the two inner hashes are written per key: no Final, no buffering, no length arithmetic, no allocation.
 *     SHA256_Transform is deprecated in OpenSSL 3, which has no other way to resume from a saved state without
 *     an allocation (EVP_MD_CTX_copy_ex frees and allocates the provider's context at every copy:
 *     Tools/bench/libcrypto-calls.c times both);
 *   - the 144 RPIs: the default provider's own AES-128-ECB functions, looked up once through the public
 *     provider API (OSSL_PROVIDER_query_operation): per key one encrypt_init with the RPIK and one update over
 *     the 144 PaddedData blocks. EVP_EncryptInit_ex2 with a NULL cipher does the same work plus a parameter
 *     query for the key length (OSSL_PARAM_locate and strcmp): 390 ns instead of 282 on the machine this was
 *     written on (Tools/bench/libcrypto-calls.c times each way). The PaddedData blocks are kept for 16 days,
 *     one set of 144 per day, so a key of a day seen before writes none (keys of many days come mixed in an
 *     export, and two alternate in the bench);
 *   - each RPI tested against a blocked Bloom filter of the RPIs seen near its day (one 64-bit word, bits from
 *     two 256-entry tables: RPIFilter's shape, which Tools/bench/lookup-floor.c found the fastest once its
 *     false positives are paid for), and the few that pass looked up among the sorted stored RPIs through a
 *     65,536-entry prefix table, a hit kept only within the ±12-interval tolerance.
 * A key with a hit would then pay for the AEMK and an AES-CTR call per sighting; one key in 10,000 hits in the
 * bench, so that is left out here.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_Transform: see above */
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/sha.h>
#include <strings.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INTERVALS_PER_DAY 144
#define SECONDS_PER_INTERVAL 600

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static uint32_t load_le32(const uint8_t *p) { uint32_t x; memcpy(&x, p, 4); return x; }
static void store_be32(uint8_t *p, uint32_t x) { x = __builtin_bswap32(x); memcpy(p, &x, 4); }

/* ---- The key schedule ---- */

/* A diagnosis key as the bench hands it over. */
typedef struct {
    uint8_t tek[16];
    uint32_t rolling_start, rolling_period;
} Key;

static int64_t bench_now; /* the time the keys are matched at */
static SHA256_CTX salt_inner, salt_outer, sha256_initial;
/* Blocks already padded as SHA-256 pads a message of 64 + (what is written) bytes. */
static uint8_t extract_block[64] __attribute__((aligned(64)));     /* TEK (16) */
static uint8_t extract_outer[64] __attribute__((aligned(64)));     /* the extract's inner hash (32) */
static uint8_t prk_ipad[64] __attribute__((aligned(64)));          /* PRK ^ 0x36 (32), then 0x36 */
static uint8_t expand_block[64] __attribute__((aligned(64)));      /* "EN-RPIK" 0x01 */
static uint8_t prk_opad[64] __attribute__((aligned(64)));          /* PRK ^ 0x5c (32), then 0x5c */
static uint8_t expand_outer[64] __attribute__((aligned(64)));      /* the expand's inner hash (32) */
/* PaddedData blocks for the keys of 16 days: a key's 144 blocks are set once per day, not once per key. */
#define PADDED_DAYS 16
static uint8_t padded[PADDED_DAYS][INTERVALS_PER_DAY * 16] __attribute__((aligned(64)));
static uint32_t padded_start[PADDED_DAYS]; /* the rolling start each holds; 1 is never a day's start */
static uint8_t rpis[INTERVALS_PER_DAY * 16] __attribute__((aligned(64)));

/* The provider's AES-128-ECB. */
static OSSL_FUNC_cipher_encrypt_init_fn *aes_init;
static OSSL_FUNC_cipher_update_fn *aes_update;
static void *aes_context;

static void pad_length(uint8_t *block, int used, int total_bytes) {
    block[used] = 0x80;
    uint64_t bits = (uint64_t)total_bytes * 8;
    for (int i = 0; i < 8; i++) block[63 - i] = (uint8_t)(bits >> (8 * i));
}

/* Whether `names` (the provider's "NAME:ALIAS:...") lists `name`. */
static int names_list(const char *names, const char *name) {
    size_t length = strlen(name);
    for (const char *p = names; p != NULL; p = strchr(p, ':'), p = p ? p + 1 : NULL)
        if (strncasecmp(p, name, length) == 0 && (p[length] == ':' || p[length] == 0)) return 1;
    return 0;
}

/* Looks up AES-128-ECB's functions in the provider a fetch picks, and makes one context of it. */
static int aes_open(void) {
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
    if (cipher == NULL) return 0;
    /* The fetched cipher is kept (never freed): it holds the provider, and so the functions, loaded. */
    const OSSL_PROVIDER *provider = EVP_CIPHER_get0_provider(cipher);
    int no_cache = 0;
    const OSSL_ALGORITHM *algorithms = OSSL_PROVIDER_query_operation(provider, OSSL_OP_CIPHER, &no_cache);
    OSSL_FUNC_cipher_newctx_fn *new_context = NULL;
    for (const OSSL_ALGORITHM *a = algorithms; a != NULL && a->algorithm_names != NULL; a++) {
        if (!names_list(a->algorithm_names, "AES-128-ECB")) continue;
        for (const OSSL_DISPATCH *f = a->implementation; f->function_id != 0; f++) {
            if (f->function_id == OSSL_FUNC_CIPHER_NEWCTX) new_context = OSSL_FUNC_cipher_newctx(f);
            if (f->function_id == OSSL_FUNC_CIPHER_ENCRYPT_INIT) aes_init = OSSL_FUNC_cipher_encrypt_init(f);
            if (f->function_id == OSSL_FUNC_CIPHER_UPDATE) aes_update = OSSL_FUNC_cipher_update(f);
        }
        break;
    }
    OSSL_PROVIDER_unquery_operation(provider, OSSL_OP_CIPHER, algorithms);
    if (new_context == NULL || aes_init == NULL || aes_update == NULL) return 0;
    aes_context = new_context(OSSL_PROVIDER_get0_provider_ctx(provider));
    return aes_context != NULL;
}

/* Sets up the constant parts. Returns 0 when libcrypto has no AES-128-ECB to call. */
int enb_reference_setup(int64_t now) {
    bench_now = now;
    uint8_t ipad[64], opad[64];
    memset(ipad, 0x36, 64);
    memset(opad, 0x5c, 64);
    SHA256_Init(&sha256_initial);
    salt_inner = salt_outer = sha256_initial;
    SHA256_Transform(&salt_inner, ipad); /* no salt: HashLen zero bytes, so the pads alone */
    SHA256_Transform(&salt_outer, opad);
    pad_length(extract_block, 16, 64 + 16);
    pad_length(extract_outer, 32, 64 + 32);
    memset(prk_ipad, 0x36, 64);
    memcpy(expand_block, "EN-RPIK\x01", 8);
    pad_length(expand_block, 8, 64 + 8);
    memset(prk_opad, 0x5c, 64);
    pad_length(expand_outer, 32, 64 + 32);
    for (int d = 0; d < PADDED_DAYS; d++) {
        for (int j = 0; j < INTERVALS_PER_DAY; j++) memcpy(padded[d] + 16 * j, "EN-RPI\0\0\0\0\0\0", 12);
        padded_start[d] = 1;
    }
    return aes_open();
}

/* RPIK = HKDF-SHA256(TEK, no salt, "EN-RPIK", 16), then the `count` (1...144) RPIs from `start` into `rpis`. */
static void key_schedule(const uint8_t tek[16], uint32_t start, uint32_t count) {
    SHA256_CTX inner = salt_inner, outer = salt_outer;
    memcpy(extract_block, tek, 16);
    SHA256_Transform(&inner, extract_block);
    for (int i = 0; i < 8; i++) store_be32(extract_outer + 4 * i, inner.h[i]);
    SHA256_Transform(&outer, extract_outer);
    /* outer.h is the PRK: the expand's HMAC key, 32 bytes, zero-padded to a block. */
    for (int i = 0; i < 8; i++) {
        store_be32(prk_ipad + 4 * i, outer.h[i] ^ 0x36363636);
        store_be32(prk_opad + 4 * i, outer.h[i] ^ 0x5c5c5c5c);
    }
    /* The two pad blocks first: they do not depend on each other, so the core overlaps their compressions
     * (3 % of the key schedule with SHA instructions). */
    inner = outer = sha256_initial;
    SHA256_Transform(&inner, prk_ipad);
    SHA256_Transform(&outer, prk_opad);
    SHA256_Transform(&inner, expand_block);
    for (int i = 0; i < 8; i++) store_be32(expand_outer + 4 * i, inner.h[i]);
    SHA256_Transform(&outer, expand_outer);
    uint8_t rpik[16];
    for (int i = 0; i < 4; i++) store_be32(rpik + 4 * i, outer.h[i]);

    int day = (start / INTERVALS_PER_DAY) % PADDED_DAYS;
    if (start != padded_start[day]) { /* a whole set, whatever the count */
        for (uint32_t j = 0; j < INTERVALS_PER_DAY; j++) {
            uint32_t n = start + j; /* little-endian, as the machines this runs on */
            memcpy(padded[day] + 16 * j + 12, &n, 4);
        }
        padded_start[day] = start;
    }
    size_t written;
    aes_init(aes_context, rpik, 16, NULL, 0, NULL);
    aes_update(aes_context, rpis, &written, sizeof rpis, padded[day], 16 * count);
}

/* The key schedule alone, 144 RPIs per key: the XOR of the first eight bytes of each key's last RPI (in the
 * machine's byte order), as the Swift loop folds them, so the two can be seen to derive the same RPIs. */
uint64_t enb_reference_key_schedule(const Key *keys, long count) {
    uint64_t sink = 0, last;
    for (long i = 0; i < count; i++) {
        key_schedule(keys[i].tek, keys[i].rolling_start, INTERVALS_PER_DAY);
        memcpy(&last, rpis + 143 * 16, 8);
        sink ^= last;
    }
    return sink;
}

/* ---- The index: filters by day, sorted RPIs ---- */

static uint64_t inverse_patterns[512]; /* RPIFilter.inversePatterns, drawn from the same seed */

typedef struct {
    uint64_t *words;
    uint32_t mask;
} DayFilter;

typedef struct {
    int64_t first_day, day_count;
    DayFilter *days;            /* words NULL: no RPI seen within the tolerance of that day */
    uint8_t (*sorted)[16];      /* the stored RPIs by prefix, */
    uint32_t *seen;             /* with the interval each was seen in */
    uint32_t *starts;           /* starts[p]..<starts[p + 1]: the RPIs whose first two bytes are p */
    int64_t tolerance;
} Index;

static int64_t day_of(int64_t interval) { return interval / INTERVALS_PER_DAY; }
static uint32_t prefix16(const uint8_t *rpi) { return (uint32_t)rpi[0] << 8 | rpi[1]; }

static void patterns_init(void) {
    uint64_t rng = 0x5EEDF117E4B17500ULL;
    for (int i = 0; i < 512; i++) {
        uint64_t half = i < 256 ? 0 : 32, pair = 0;
        while (__builtin_popcountll(pair) < 2) pair |= 1ULL << (half + (splitmix64(&rng) & 31));
        inverse_patterns[i] = ~pair;
    }
}

static int64_t first_near(uint32_t n, int64_t tolerance) { return day_of(n < tolerance ? 0 : n - tolerance); }
static int64_t last_near(uint32_t n, int64_t tolerance) {
    int64_t far = (int64_t)n + tolerance;
    return day_of(far > UINT32_MAX ? UINT32_MAX : far);
}

/* `count` stored RPIs (16 bytes each) and the interval each was seen in. */
void *enb_reference_index(const uint8_t *stored, const uint32_t *intervals, long count, int64_t tolerance) {
    patterns_init();
    Index *x = calloc(1, sizeof *x);
    x->tolerance = tolerance;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (long i = 0; i < count; i++) {
        if (first_near(intervals[i], tolerance) < lo) lo = first_near(intervals[i], tolerance);
        if (last_near(intervals[i], tolerance) > hi) hi = last_near(intervals[i], tolerance);
    }
    x->first_day = count ? lo : 0;
    x->day_count = count ? hi - lo + 1 : 0;
    x->days = calloc(x->day_count + 1, sizeof *x->days);
    long *per_day = calloc(x->day_count + 1, sizeof *per_day);
    for (long i = 0; i < count; i++)
        for (int64_t d = first_near(intervals[i], tolerance); d <= last_near(intervals[i], tolerance); d++)
            per_day[d - x->first_day]++;
    for (int64_t d = 0; d < x->day_count; d++) {
        if (per_day[d] == 0) continue;
        uint32_t words = 1;
        while ((long)words * 64 < per_day[d] * 32) words *= 2; /* 32 to 64 bits per RPI, as RPIFilter */
        x->days[d].words = aligned_alloc(64, words * 8 < 64 ? 64 : words * 8);
        memset(x->days[d].words, 0, words * 8);
        x->days[d].mask = words - 1;
    }
    for (long i = 0; i < count; i++) {
        const uint8_t *r = stored + 16 * i;
        for (int64_t d = first_near(intervals[i], tolerance); d <= last_near(intervals[i], tolerance); d++) {
            DayFilter *f = &x->days[d - x->first_day];
            f->words[load_le32(r + 12) & f->mask] |= ~(inverse_patterns[r[8]] & inverse_patterns[256 + r[9]]);
        }
    }
    free(per_day);
    /* Counting sort by prefix. */
    x->starts = calloc(65537, sizeof *x->starts);
    x->sorted = malloc(16 * (count + 1));
    x->seen = malloc(4 * (count + 1));
    for (long i = 0; i < count; i++) x->starts[prefix16(stored + 16 * i) + 1]++;
    for (int p = 1; p <= 65536; p++) x->starts[p] += x->starts[p - 1];
    uint32_t *next = malloc(65536 * sizeof *next);
    memcpy(next, x->starts, 65536 * sizeof *next);
    for (long i = 0; i < count; i++) {
        uint32_t at = next[prefix16(stored + 16 * i)]++;
        memcpy(x->sorted[at], stored + 16 * i, 16);
        x->seen[at] = intervals[i];
    }
    free(next);
    return x;
}

void enb_reference_index_free(void *index) {
    Index *x = index;
    for (int64_t d = 0; d < x->day_count; d++) free(x->days[d].words);
    free(x->days);
    free(x->sorted);
    free(x->seen);
    free(x->starts);
    free(x);
}

static const DayFilter *filter_of(const Index *x, uint32_t interval) {
    int64_t d = day_of(interval) - x->first_day;
    return d >= 0 && d < x->day_count && x->days[d].words ? &x->days[d] : NULL;
}

/* Whether RPI j (interval start + j) is stored and was seen within the tolerance of its interval. */
__attribute__((noinline)) static int look_up(const Index *x, const uint8_t *rpi, uint32_t interval) {
    uint32_t p = prefix16(rpi);
    for (uint32_t i = x->starts[p]; i < x->starts[p + 1]; i++) {
        if (memcmp(x->sorted[i], rpi, 16) != 0) continue;
        int64_t distance = (int64_t)x->seen[i] - interval;
        if (distance >= -x->tolerance && distance <= x->tolerance) return 1;
    }
    return 0;
}

/* The matcher: how many of the keys have a stored RPI within the tolerance. */
long enb_reference_match(const void *index, const Key *keys, long count) {
    const Index *x = index;
    long matched = 0;
    for (long i = 0; i < count; i++) {
        uint32_t start = keys[i].rolling_start, period = keys[i].rolling_period;
        period = period < 1 ? 1 : period > INTERVALS_PER_DAY ? INTERVALS_PER_DAY : period;
        int64_t valid_end = (int64_t)start + period;
        if (bench_now < (valid_end + 12) * SECONDS_PER_INTERVAL) continue;           /* under embargo */
        if (valid_end * SECONDS_PER_INTERVAL < bench_now - 14 * 86400) continue;     /* too old */
        const DayFilter *first_day = filter_of(x, start), *last_day = filter_of(x, start + period - 1);
        if (!first_day && !last_day) continue;                                       /* nobody near that day */
        key_schedule(keys[i].tek, start, period);
        int hit = 0;
        for (uint32_t j = 0; j < period;) {
            uint32_t n = start + j;
            uint32_t day_end = j + (INTERVALS_PER_DAY - n % INTERVALS_PER_DAY);
            if (day_end > period) day_end = period;
            const DayFilter *f = filter_of(x, n);
            if (f) {
                const uint64_t *words = f->words;
                const uint32_t mask = f->mask;
                for (; j < day_end; j++) {
                    const uint8_t *r = rpis + 16 * j;
                    uint64_t covered = words[load_le32(r + 12) & mask] | (inverse_patterns[r[8]] & inverse_patterns[256 + r[9]]);
                    if (__builtin_expect(covered == ~0ULL, 0)) hit |= look_up(x, r, start + j);
                }
            }
            j = day_end;
        }
        matched += hit;
    }
    return matched;
}
