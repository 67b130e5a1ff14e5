// A cipher's own functions, taken from the provider that implements it, for the loop that rekeys one context
// millions of times: the key schedule's AES-128-ECB, one key per diagnosis key (KeySchedule).
//
// EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL) ends in the same provider call, but OpenSSL 3.0 first asks
// the provider for the key length through a parameter query (EVP_CIPHER_CTX_get_key_length: OSSL_PARAM_locate,
// strcmp) at every call. Tools/bench/libcrypto-calls.c times each way; on one x86 core with AES instructions,
// rekeying and encrypting 144 blocks took 530 ns with the cipher given at each init (as before), 390 with a
// NULL cipher, and 282 through the provider's functions.
// The provider interface (provider-cipher(7), OSSL_PROVIDER_query_operation(3)) is public and stable across
// OpenSSL 3.x, and the functions are those EVP itself calls for the fetched cipher.
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <string.h>
#include <strings.h>

typedef struct {
    void *context;
    OSSL_FUNC_cipher_encrypt_init_fn *encrypt_init;
    OSSL_FUNC_cipher_update_fn *update;
    OSSL_FUNC_cipher_freectx_fn *free_context;
} enb_provider_cipher;

/// Whether `names` (a provider's "NAME:ALIAS:...") lists `name`, case aside.
static inline int enb_names_list(const char *names, const char *name) {
    size_t length = strlen(name);
    for (const char *p = names; p != NULL; p = strchr(p, ':'), p = p != NULL ? p + 1 : NULL) {
        if (strncasecmp(p, name, length) == 0 && (p[length] == ':' || p[length] == 0)) return 1;
    }
    return 0;
}

/// Finds `name` among the ciphers of the provider `cipher` was fetched from and makes one context of it.
/// `cipher` must outlive the result: it keeps the provider, and so the functions, loaded. Returns 1 on success.
static inline int enb_provider_cipher_open(const EVP_CIPHER *cipher, const char *name, enb_provider_cipher *out) {
    memset(out, 0, sizeof *out);
    const OSSL_PROVIDER *provider = EVP_CIPHER_get0_provider(cipher);
    if (provider == NULL) return 0;
    int no_cache = 0;
    const OSSL_ALGORITHM *algorithms = OSSL_PROVIDER_query_operation(provider, OSSL_OP_CIPHER, &no_cache);
    OSSL_FUNC_cipher_newctx_fn *new_context = NULL;
    for (const OSSL_ALGORITHM *a = algorithms; a != NULL && a->algorithm_names != NULL; a++) {
        if (!enb_names_list(a->algorithm_names, name)) continue;
        for (const OSSL_DISPATCH *f = a->implementation; f->function_id != 0; f++) {
            switch (f->function_id) {
            case OSSL_FUNC_CIPHER_NEWCTX: new_context = OSSL_FUNC_cipher_newctx(f); break;
            case OSSL_FUNC_CIPHER_ENCRYPT_INIT: out->encrypt_init = OSSL_FUNC_cipher_encrypt_init(f); break;
            case OSSL_FUNC_CIPHER_UPDATE: out->update = OSSL_FUNC_cipher_update(f); break;
            case OSSL_FUNC_CIPHER_FREECTX: out->free_context = OSSL_FUNC_cipher_freectx(f); break;
            }
        }
        break;
    }
    if (algorithms != NULL) OSSL_PROVIDER_unquery_operation(provider, OSSL_OP_CIPHER, algorithms);
    if (new_context == NULL || out->encrypt_init == NULL || out->update == NULL || out->free_context == NULL) return 0;
    out->context = new_context(OSSL_PROVIDER_get0_provider_ctx(provider));
    return out->context != NULL;
}

/// Keys the context with `key` (its whole length: 16 bytes for AES-128) and encrypts `length` bytes, a whole
/// number of blocks, from `in` to `out`. Returns 1 on success.
static inline int enb_provider_cipher_encrypt(const enb_provider_cipher *c, const unsigned char *key, size_t key_length,
                                              const unsigned char *in, unsigned char *out, size_t length) {
    size_t written = 0;
    return c->encrypt_init(c->context, key, key_length, NULL, 0, NULL) == 1
        && c->update(c->context, out, &written, length, in, length) == 1 && written == length;
}

static inline void enb_provider_cipher_close(enb_provider_cipher *c) {
    if (c->context != NULL) c->free_context(c->context);
    c->context = NULL;
}
