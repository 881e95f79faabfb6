#ifndef VPSPACK_CCURL_SHIM_H
#define VPSPACK_CCURL_SHIM_H
#include <curl/curl.h>

/// curl_easy_setopt and curl_easy_getinfo are variadic; Swift can only call
/// these fixed-arity helpers, one per argument type.
static inline CURLcode vpspack_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode vpspack_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode vpspack_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode vpspack_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// The signature of CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*vpspack_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode vpspack_curl_setopt_data_callback(CURL *handle, CURLoption option, vpspack_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// The signature of CURLOPT_XFERINFOFUNCTION.
typedef int (*vpspack_curl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode vpspack_curl_setopt_xferinfo_callback(CURL *handle, vpspack_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode vpspack_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode vpspack_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
#endif
