// The microcontroller's libcrypto subset (COpenSSL/libcrypto_subset.h) filled with mbedTLS, built from Debian's
// source package by Tools/build-mcu. Only calls into mbedTLS: AES (mbedtls_aes_*), SHA-256's compression function
// and digest (mbedtls_internal_sha256_process, mbedtls_sha256_ret), and its zeroisation.
#include "COpenSSL/libcrypto_subset.h"
#include <mbedtls/aes.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/sha256.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct evp_cipher_st { int ctr; };
static EVP_CIPHER aes128_ecb = { 0 }, aes128_ctr = { 1 };
struct evp_md_st { int unused; };
static const EVP_MD sha256 = { 0 };

struct evp_cipher_ctx_st {
    const EVP_CIPHER *cipher;
    mbedtls_aes_context aes;
    unsigned char counter[16], stream[16];
    size_t offset;
};

static int last_error;
static int failed(int code) {
    if (code != 0) last_error = code;
    return code == 0;
}

// SHA-256 through an mbedTLS context: its state words in, one block, its state words out.
void enb_sha256_init(SHA256_CTX *state) {
    mbedtls_sha256_context c;
    mbedtls_sha256_init(&c);
    failed(mbedtls_sha256_starts_ret(&c, 0));
    memcpy(state->h, c.state, sizeof state->h);
    mbedtls_sha256_free(&c);
}

void enb_sha256_block(SHA256_CTX *state, const unsigned char *block) {
    mbedtls_sha256_context c;
    mbedtls_sha256_init(&c);
    memcpy(c.state, state->h, sizeof state->h);
    failed(mbedtls_internal_sha256_process(&c, block));
    memcpy(state->h, c.state, sizeof state->h);
    mbedtls_sha256_free(&c);  // zeroises the copy
}

EVP_CIPHER *EVP_CIPHER_fetch(OSSL_LIB_CTX *libctx, const char *algorithm, const char *properties) {
    (void)libctx, (void)properties;
    if (strcmp(algorithm, "AES-128-ECB") == 0) return &aes128_ecb;
    if (strcmp(algorithm, "AES-128-CTR") == 0) return &aes128_ctr;
    return NULL;
}

void EVP_CIPHER_free(EVP_CIPHER *cipher) { (void)cipher; }  // static: nothing to free

int enb_provider_cipher_open(const EVP_CIPHER *cipher, const char *name, enb_provider_cipher *out) {
    out->context = NULL;
    if (cipher != &aes128_ecb || strcmp(name, "AES-128-ECB") != 0) return 0;
    mbedtls_aes_context *aes = malloc(sizeof *aes);
    if (aes == NULL) return 0;
    mbedtls_aes_init(aes);
    out->context = aes;
    return 1;
}

int enb_provider_cipher_encrypt(const enb_provider_cipher *c, const unsigned char *key, size_t key_length,
                                const unsigned char *in, unsigned char *out, size_t length) {
    mbedtls_aes_context *aes = c->context;
    if (key_length != 16 || length % 16 != 0 || !failed(mbedtls_aes_setkey_enc(aes, key, 128))) return 0;
    for (size_t i = 0; i < length; i += 16) {
        if (!failed(mbedtls_aes_crypt_ecb(aes, MBEDTLS_AES_ENCRYPT, in + i, out + i))) return 0;
    }
    return 1;
}

void enb_provider_cipher_close(enb_provider_cipher *c) {
    if (c->context != NULL) {
        mbedtls_aes_free(c->context);  // zeroises the round keys
        free(c->context);
    }
    c->context = NULL;
}

EVP_CIPHER_CTX *EVP_CIPHER_CTX_new(void) {
    EVP_CIPHER_CTX *ctx = calloc(1, sizeof *ctx);
    if (ctx != NULL) mbedtls_aes_init(&ctx->aes);
    return ctx;
}

void EVP_CIPHER_CTX_free(EVP_CIPHER_CTX *ctx) {
    if (ctx == NULL) return;
    mbedtls_aes_free(&ctx->aes);
    mbedtls_platform_zeroize(ctx, sizeof *ctx);
    free(ctx);
}

// As OpenSSL's: a NULL cipher, key or IV keeps what the context has. CTR only (the core's only use of a context).
int EVP_EncryptInit_ex2(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *type, const unsigned char *key,
                        const unsigned char *iv, const OSSL_PARAM *params) {
    (void)params;
    if (type != NULL) ctx->cipher = type;
    if (ctx->cipher != &aes128_ctr) return 0;
    if (key != NULL && !failed(mbedtls_aes_setkey_enc(&ctx->aes, key, 128))) return 0;
    if (iv != NULL) {
        memcpy(ctx->counter, iv, 16);
        ctx->offset = 0;
    }
    return 1;
}

int EVP_EncryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl) {
    if (ctx->cipher != &aes128_ctr || inl < 0) return 0;
    if (!failed(mbedtls_aes_crypt_ctr(&ctx->aes, (size_t)inl, &ctx->offset, ctx->counter, ctx->stream, in, out))) return 0;
    *outl = inl;
    return 1;
}

const EVP_MD *EVP_sha256(void) { return &sha256; }

int EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size, const EVP_MD *type, ENGINE *impl) {
    (void)impl;
    if (type != &sha256 || !failed(mbedtls_sha256_ret(data, count, md, 0))) return 0;
    if (size != NULL) *size = 32;
    return 1;
}

void OPENSSL_cleanse(void *ptr, size_t len) { mbedtls_platform_zeroize(ptr, len); }

unsigned long ERR_get_error(void) {
    unsigned long e = (unsigned long)(-last_error);
    last_error = 0;
    return e;
}

void ERR_error_string_n(unsigned long e, char *buf, size_t len) {
    snprintf(buf, len, "mbedtls error -0x%04lx", e);
}
