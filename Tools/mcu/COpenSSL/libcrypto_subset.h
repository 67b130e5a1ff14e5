// The libcrypto calls the core's microcontroller subset makes (KeySchedule, ExposureID), under OpenSSL 3's names
// and prototypes, so the same Swift sources compile against this header on the microcontroller and against
// OpenSSL's headers (Sources/COpenSSL) on Linux. Filled with mbedTLS in ../openssl_on_mbedtls.c; no cryptography
// is computed there, only mbedTLS's AES and SHA-256 called.
//
// The opaque types stay opaque (incomplete), as Swift sees them from OpenSSL: OpaquePointer in both builds.
#ifndef ENBEACON_MCU_LIBCRYPTO_SUBSET_H
#define ENBEACON_MCU_LIBCRYPTO_SUBSET_H
#include <stddef.h>
#include <stdint.h>

typedef struct ossl_lib_ctx_st OSSL_LIB_CTX;
typedef struct ossl_param_st OSSL_PARAM;
typedef struct engine_st ENGINE;
typedef struct evp_cipher_st EVP_CIPHER;
typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;
typedef struct evp_md_st EVP_MD;

// SHA-256's state words, all the core reads or carries between compressions (as `h` leads OpenSSL's SHA256_CTX).
typedef struct { uint32_t h[8]; } SHA256_CTX;
void enb_sha256_init(SHA256_CTX *state);
void enb_sha256_block(SHA256_CTX *state, const unsigned char *block);

// AES-128-ECB, rekeyed per key (provider_cipher.h's interface on Linux).
typedef struct { void *context; } enb_provider_cipher;
int enb_provider_cipher_open(const EVP_CIPHER *cipher, const char *name, enb_provider_cipher *out);
int enb_provider_cipher_encrypt(const enb_provider_cipher *c, const unsigned char *key, size_t key_length,
                                const unsigned char *in, unsigned char *out, size_t length);
void enb_provider_cipher_close(enb_provider_cipher *c);

// "AES-128-ECB" and "AES-128-CTR" only; NULL for any other name.
EVP_CIPHER *EVP_CIPHER_fetch(OSSL_LIB_CTX *libctx, const char *algorithm, const char *properties);
void EVP_CIPHER_free(EVP_CIPHER *cipher);
EVP_CIPHER_CTX *EVP_CIPHER_CTX_new(void);
void EVP_CIPHER_CTX_free(EVP_CIPHER_CTX *ctx);
int EVP_EncryptInit_ex2(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *type, const unsigned char *key,
                        const unsigned char *iv, const OSSL_PARAM *params);
int EVP_EncryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl);

const EVP_MD *EVP_sha256(void);
int EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size, const EVP_MD *type, ENGINE *impl);

void OPENSSL_cleanse(void *ptr, size_t len);
// The last mbedTLS error, as libcrypto's error queue would hold it (one deep).
unsigned long ERR_get_error(void);
void ERR_error_string_n(unsigned long e, char *buf, size_t len);
#endif
