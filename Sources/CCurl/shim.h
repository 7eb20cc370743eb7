// libcurl for Swift. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift
// cannot call, and CURL_GLOBAL_DEFAULT is a macro: the few options and infos the HTTP
// actions need are wrapped here, one typed function each. Everything else (curl_easy_init,
// curl_easy_perform, curl_slist_append, curl_url) imports as is.
#ifndef BLEEXPLR_CCURL_SHIM_H
#define BLEEXPLR_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode bx_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

static inline CURLcode bx_curl_set_url(CURL *h, const char *url) {
    return curl_easy_setopt(h, CURLOPT_URL, url);
}
/// Only http and https, for the request and (were redirects followed) for redirects.
static inline CURLcode bx_curl_set_http_only(CURL *h) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
}
/// A POST body of exactly `n` bytes (any bytes, NULs included); curl does not copy it, so
/// it must live until curl_easy_perform returns. NULL with n == 0 is an empty body.
static inline CURLcode bx_curl_set_body(CURL *h, const void *bytes, long n) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, n);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_POSTFIELDS, bytes ? bytes : "");
}
/// A method other than POST (the body is still sent).
static inline CURLcode bx_curl_set_method(CURL *h, const char *method) {
    return curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
}
static inline CURLcode bx_curl_set_headers(CURL *h, struct curl_slist *list) {
    return curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
}
static inline CURLcode bx_curl_set_user_agent(CURL *h, const char *agent) {
    return curl_easy_setopt(h, CURLOPT_USERAGENT, agent);
}
/// The whole transfer, connecting included, in milliseconds.
static inline CURLcode bx_curl_set_timeout_ms(CURL *h, long ms) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
}
/// No signals (SIGALRM for DNS timeouts, SIGPIPE): curl runs on a worker thread of a
/// program with its own signal handling.
static inline CURLcode bx_curl_set_no_signal(CURL *h) {
    return curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
}
static inline CURLcode bx_curl_set_no_redirects(CURL *h) {
    return curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
}
static inline CURLcode bx_curl_set_write(CURL *h, curl_write_callback f, void *userdata) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_WRITEDATA, userdata);
}
/// The last response's status code (0: none).
static inline long bx_curl_response_code(CURL *h) {
    long code = 0;
    if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK) return 0;
    return code;
}
#endif
