#ifndef VPSPACK_COPENSSL_SHIM_H
#define VPSPACK_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#endif
