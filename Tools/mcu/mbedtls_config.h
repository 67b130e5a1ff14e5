// mbedTLS 2.28 built for the microcontroller image (Tools/build-mcu): only what the GAEN core calls. AES-128
// (ECB for RPIs, CTR for AEMs) and SHA-256; nothing that needs an operating system, a clock or an entropy source.
#ifndef ENBEACON_MBEDTLS_CONFIG_H
#define ENBEACON_MBEDTLS_CONFIG_H
#define MBEDTLS_AES_C
#define MBEDTLS_CIPHER_MODE_CTR
#define MBEDTLS_SHA256_C
// Flash against speed: the tables computed into RAM at the first key (8 KB of RAM) would cost more of a
// wristband's 64 KB than the 8 KB of flash they take as constants.
#define MBEDTLS_AES_ROM_TABLES
#include "mbedtls/check_config.h"
#endif
