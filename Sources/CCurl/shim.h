#include <curl/curl.h>
#include <dlfcn.h>

// libcurl is loaded at run time (dlopen), so every call goes through a function pointer. The variadic
// ones (setopt, getinfo) cannot be called from Swift: these wrappers take the pointer, typed variadic,
// and make the call in C with the right calling convention.
typedef CURLcode (*enb_curl_easy_setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*enb_curl_easy_getinfo_fn)(CURL *, CURLINFO, ...);
typedef CURLMcode (*enb_curl_multi_setopt_fn)(CURLM *, CURLMoption, ...);

static inline CURLcode enb_curl_easy_setopt_long(enb_curl_easy_setopt_fn f, CURL *h, CURLoption o, long v) {
    return f(h, o, v);
}
static inline CURLcode enb_curl_easy_setopt_ptr(enb_curl_easy_setopt_fn f, CURL *h, CURLoption o, const void *v) {
    return f(h, o, v);
}
static inline CURLcode enb_curl_easy_getinfo_long(enb_curl_easy_getinfo_fn f, CURL *h, CURLINFO i, long *v) {
    return f(h, i, v);
}
static inline CURLcode enb_curl_easy_getinfo_string(enb_curl_easy_getinfo_fn f, CURL *h, CURLINFO i, char **v) {
    return f(h, i, v);
}
static inline CURLcode enb_curl_easy_set_writer(enb_curl_easy_setopt_fn f, CURL *h, curl_write_callback write_cb,
                                                void *userdata) {
    f(h, CURLOPT_WRITEFUNCTION, write_cb);
    return f(h, CURLOPT_WRITEDATA, userdata);
}
static inline CURLMcode enb_curl_multi_set_callbacks(enb_curl_multi_setopt_fn f, CURLM *m,
                                                      curl_socket_callback socket_cb,
                                                      curl_multi_timer_callback timer_cb, void *userdata) {
    f(m, CURLMOPT_SOCKETFUNCTION, socket_cb);
    f(m, CURLMOPT_SOCKETDATA, userdata);
    f(m, CURLMOPT_TIMERFUNCTION, timer_cb);
    return f(m, CURLMOPT_TIMERDATA, userdata);
}
