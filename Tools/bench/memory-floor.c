/*
 * The memory floor under the board agent: what glibc and libcrypto alone hold once they have done what the idle
 * agent asks of them, measured without Swift.
 *
 * Issue 25 asks the board agent, idle for a minute, for at most 6 MB of RSS and 1 MB of Private_Dirty. Most of
 * that is not the agent's. libcrypto is linked dynamically, as the board's distribution ships it: the dynamic
 * loader relocates its data (private dirty pages), and OpenSSL 3's default provider, which the first fetch of a
 * cipher loads, touches its algorithm tables (resident file pages, mapped 64 KiB at a time by the kernel's
 * fault-around). This program does the idle agent's libcrypto calls (AES-128-ECB and AES-128-CTR fetched and
 * used, SHA-256, RAND_bytes) and prints the same figures the agent is measured by, so the agent's own share is
 * the difference. `sync` adds what a key sync adds (a P-256 key, an ECDSA signature); `download URL` adds a
 * transfer too, as the agent makes it: libcurl loaded with dlopen (its whole library closure mapped), one GET,
 * the body discarded, the figures taken while the library is still loaded.
 *
 *   cc -Os -o /tmp/memory-floor Tools/bench/memory-floor.c -lcrypto -ldl && /tmp/memory-floor [glibc|idle|sync|download URL]
 *
 * Figures: VmRSS (and its file and anonymous parts) from /proc/self/status, Private_Dirty from
 * /proc/self/smaps_rollup, and the resident size of each library's mappings from /proc/self/smaps.
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long field(const char *path, const char *name) {
    char line[512];
    unsigned long value = 0;
    size_t length = strlen(name);
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    while (fgets(line, sizeof line, file))
        if (strncmp(line, name, length) == 0 && line[length] == ':') value = strtoul(line + length + 1, NULL, 10);
    fclose(file);
    return value;
}

/* Resident kB of the mappings whose path contains `needle`. */
static unsigned long resident(const char *needle) {
    char line[1024], path[512] = "";
    unsigned long total = 0, rss;
    FILE *file = fopen("/proc/self/smaps", "r");
    if (!file) return 0;
    while (fgets(line, sizeof line, file)) {
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx", &start, &end) == 2) {  /* a mapping's first line: its path is the last field */
            char *last = strrchr(line, ' ');
            snprintf(path, sizeof path, "%s", last ? last + 1 : "");
        } else if (sscanf(line, "Rss: %lu", &rss) == 1 && strstr(path, needle)) {
            total += rss;
        }
    }
    fclose(file);
    return total;
}

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

static void report(const char *what) {
    printf("%s: VmRSS %lu kB (file %lu kB, anonymous %lu kB), Private_Dirty %lu kB; resident: libcrypto %lu kB, "
           "libc %lu kB, loader %lu kB, every shared library %lu kB\n", what, field("/proc/self/status", "VmRSS"),
           field("/proc/self/status", "RssFile"), field("/proc/self/status", "RssAnon"),
           field("/proc/self/smaps_rollup", "Private_Dirty"), resident("libcrypto"), resident("libc.so"),
           resident("ld-linux"), resident(".so"));
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "idle";
    if (strcmp(mode, "glibc") == 0) {
        report("glibc, libcrypto loaded and not called");
        return 0;
    }
    int download = strcmp(mode, "download") == 0 && argc > 2;
    if (strcmp(mode, "idle") != 0 && strcmp(mode, "sync") != 0 && !download) {
        fprintf(stderr, "usage: memory-floor [glibc|idle|sync|download URL]\n");
        return 2;
    }
    unsigned char key[16], block[16] = {0}, out[80];  /* an ECDSA P-256 signature in DER is at most 72 bytes */
    int length;
    unsigned int digestLength;
    EVP_CIPHER *ecb = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL), *ctr = EVP_CIPHER_fetch(NULL, "AES-128-CTR", NULL);
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (RAND_bytes(key, sizeof key) != 1 || !ecb || !ctr || !context
        || EVP_EncryptInit_ex2(context, ecb, key, NULL, NULL) != 1 || EVP_EncryptUpdate(context, out, &length, block, 16) != 1
        || EVP_EncryptInit_ex2(context, ctr, key, block, NULL) != 1 || EVP_EncryptUpdate(context, out, &length, block, 16) != 1
        || EVP_Digest(block, sizeof block, out, &digestLength, EVP_sha256(), NULL) != 1) {
        fprintf(stderr, "memory-floor: libcrypto failed\n");
        return 1;
    }
    if (strcmp(mode, "idle") == 0) {
        report("glibc and libcrypto after the idle agent's calls (AES-128 ECB and CTR, SHA-256, RAND_bytes)");
        return 0;
    }
    EVP_PKEY *pair = NULL;
    EVP_PKEY_CTX *generator = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_MD_CTX *signer = EVP_MD_CTX_new();
    size_t signatureLength = sizeof out;
    if (!generator || EVP_PKEY_keygen_init(generator) != 1 || EVP_PKEY_CTX_set_group_name(generator, "P-256") != 1
        || EVP_PKEY_generate(generator, &pair) != 1 || !signer
        || EVP_DigestSignInit_ex(signer, NULL, "SHA256", NULL, NULL, pair, NULL) != 1
        || EVP_DigestSign(signer, out, &signatureLength, block, sizeof block) != 1) {
        fprintf(stderr, "memory-floor: P-256 failed\n");
        return 1;
    }
    if (!download) {
        report("glibc and libcrypto after a key sync's calls too (P-256, ECDSA)");
        return 0;
    }
    /* libcurl's easy interface by name, as the agent reaches it (CURLOPT_URL 10002, CURLOPT_WRITEFUNCTION 20011). */
    void *curl = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!curl) {
        fprintf(stderr, "memory-floor: %s\n", dlerror());
        return 1;
    }
    void *(*easy_init)(void) = (void *(*)(void))dlsym(curl, "curl_easy_init");
    int (*easy_setopt)(void *, int, ...) = (int (*)(void *, int, ...))dlsym(curl, "curl_easy_setopt");
    int (*easy_perform)(void *) = (int (*)(void *))dlsym(curl, "curl_easy_perform");
    void *handle = easy_init ? easy_init() : NULL;
    if (!handle || !easy_setopt || !easy_perform || easy_setopt(handle, 10002, argv[2]) != 0
        || easy_setopt(handle, 20011, discard) != 0 || easy_perform(handle) != 0) {
        fprintf(stderr, "memory-floor: the download of %s failed\n", argv[2]);
        return 1;
    }
    report("glibc, libcrypto and libcurl after a key sync's calls and one download");
    return 0;
}
