#include <curl/curl.h>
// curl_easy_setopt and curl_multi_setopt are variadic, which Swift cannot call: typed wrappers.
static inline CURLcode enb_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode enb_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode enb_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode enb_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode enb_curl_multi_setopt_ptr(CURLM *m, CURLMoption o, const void *v) { return curl_multi_setopt(m, o, v); }
// Callback registration: function pointers and their user data, in one call each.
static inline CURLMcode enb_curl_multi_set_callbacks(CURLM *m, curl_socket_callback socket_cb,
                                                      curl_multi_timer_callback timer_cb, void *userdata) {
    curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, socket_cb);
    curl_multi_setopt(m, CURLMOPT_SOCKETDATA, userdata);
    curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, timer_cb);
    return curl_multi_setopt(m, CURLMOPT_TIMERDATA, userdata);
}
static inline CURLcode enb_curl_easy_set_writer(CURL *h, curl_write_callback write_cb, void *userdata) {
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
    return curl_easy_setopt(h, CURLOPT_WRITEDATA, userdata);
}
