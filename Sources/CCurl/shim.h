#include <curl/curl.h>
// curl_easy_setopt and curl_multi_setopt are variadic, which Swift cannot call: typed wrappers.
static inline CURLcode enb_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode enb_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode enb_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode enb_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode enb_curl_multi_setopt_ptr(CURLM *m, CURLMoption o, const void *v) { return curl_multi_setopt(m, o, v); }
