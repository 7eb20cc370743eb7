// libcurl for Swift, loaded on first use. curl_easy_setopt and curl_easy_getinfo are
// variadic, which Swift cannot call, and CURL_GLOBAL_DEFAULT is a macro: the few options
// and infos the HTTP actions need are wrapped here, one typed function each.
//
// libcurl is opened with dlopen the first time an HTTP action needs it, not linked: with
// the libraries only it pulls in (libcrypto, gnutls, krb5, ldap, ssh2, nghttp2...) it was
// 5.4 MiB of every bleexplr process's resident memory, though most runs never send a
// request (docs/bench.md). Every libcurl function goes through the table below; without
// libcurl they fail (NULL, CURLE_FAILED_INIT, CURLUE_OUT_OF_MEMORY) and the action says so.
#ifndef BLEEXPLR_CCURL_SHIM_H
#define BLEEXPLR_CCURL_SHIM_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

struct bx_curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLU *(*url)(void);
    void (*url_cleanup)(CURLU *);
    CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
    CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
    void (*free)(void *);
};

// State in a function-local static: Swift emits a header's inline functions (and their
// statics) into the module that calls them, but not a header's file-scope variables.
struct bx_curl_state {
    pthread_once_t once;
    int loaded;
    struct bx_curl_api api;
};
static inline struct bx_curl_state *bx_curl_state(void) {
    static struct bx_curl_state state = {PTHREAD_ONCE_INIT, 0, {0}};
    return &state;
}

static void bx_curl_open(void) {
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    struct bx_curl_api t;
#define BX_CURL_SYM(field, name) if (!(*(void **)&t.field = dlsym(lib, name))) return
    BX_CURL_SYM(global_init, "curl_global_init");
    BX_CURL_SYM(easy_init, "curl_easy_init");
    BX_CURL_SYM(easy_cleanup, "curl_easy_cleanup");
    BX_CURL_SYM(easy_reset, "curl_easy_reset");
    BX_CURL_SYM(easy_perform, "curl_easy_perform");
    BX_CURL_SYM(easy_setopt, "curl_easy_setopt");
    BX_CURL_SYM(easy_getinfo, "curl_easy_getinfo");
    BX_CURL_SYM(slist_append, "curl_slist_append");
    BX_CURL_SYM(slist_free_all, "curl_slist_free_all");
    BX_CURL_SYM(url, "curl_url");
    BX_CURL_SYM(url_cleanup, "curl_url_cleanup");
    BX_CURL_SYM(url_set, "curl_url_set");
    BX_CURL_SYM(url_get, "curl_url_get");
    BX_CURL_SYM(free, "curl_free");
#undef BX_CURL_SYM
    bx_curl_state()->api = t;
    bx_curl_state()->loaded = 1;
}

/// The table, NULL when libcurl (libcurl.so.4) cannot be loaded. Thread-safe.
static inline const struct bx_curl_api *bx_curl(void) {
    struct bx_curl_state *s = bx_curl_state();
    pthread_once(&s->once, bx_curl_open);
    return s->loaded ? &s->api : NULL;
}

static inline CURLcode bx_curl_global_init(void) {
    return bx_curl() ? bx_curl()->global_init(CURL_GLOBAL_DEFAULT) : CURLE_FAILED_INIT;
}
static inline CURL *bx_curl_easy_init(void) { return bx_curl() ? bx_curl()->easy_init() : NULL; }
static inline void bx_curl_easy_cleanup(CURL *h) { if (bx_curl()) bx_curl()->easy_cleanup(h); }
static inline void bx_curl_easy_reset(CURL *h) { if (bx_curl()) bx_curl()->easy_reset(h); }
static inline CURLcode bx_curl_easy_perform(CURL *h) {
    return bx_curl() ? bx_curl()->easy_perform(h) : CURLE_FAILED_INIT;
}
static inline struct curl_slist *bx_curl_slist_append(struct curl_slist *l, const char *s) {
    return bx_curl() ? bx_curl()->slist_append(l, s) : NULL;
}
static inline void bx_curl_slist_free_all(struct curl_slist *l) { if (bx_curl()) bx_curl()->slist_free_all(l); }
static inline CURLU *bx_curl_url(void) { return bx_curl() ? bx_curl()->url() : NULL; }
static inline void bx_curl_url_cleanup(CURLU *u) { if (bx_curl()) bx_curl()->url_cleanup(u); }
static inline CURLUcode bx_curl_url_set(CURLU *u, CURLUPart part, const char *s, unsigned int flags) {
    return bx_curl() ? bx_curl()->url_set(u, part, s, flags) : CURLUE_OUT_OF_MEMORY;
}
static inline CURLUcode bx_curl_url_get(const CURLU *u, CURLUPart part, char **out, unsigned int flags) {
    return bx_curl() ? bx_curl()->url_get(u, part, out, flags) : CURLUE_OUT_OF_MEMORY;
}
static inline void bx_curl_free(void *p) { if (bx_curl()) bx_curl()->free(p); }
/// curl_easy_setopt through the table (the setters below; NULL handles never reach them).
#define BX_SETOPT(h, opt, v) (bx_curl() ? bx_curl()->easy_setopt((h), (opt), (v)) : CURLE_FAILED_INIT)

static inline CURLcode bx_curl_set_url(CURL *h, const char *url) {
    return BX_SETOPT(h, CURLOPT_URL, url);
}
/// Only http and https, for the request and (were redirects followed) for redirects.
static inline CURLcode bx_curl_set_http_only(CURL *h) {
    CURLcode rc = BX_SETOPT(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (rc != CURLE_OK) return rc;
    return BX_SETOPT(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
}
/// A POST body of exactly `n` bytes (any bytes, NULs included); curl does not copy it, so
/// it must live until curl_easy_perform returns. NULL with n == 0 is an empty body.
static inline CURLcode bx_curl_set_body(CURL *h, const void *bytes, long n) {
    CURLcode rc = BX_SETOPT(h, CURLOPT_POSTFIELDSIZE, n);
    if (rc != CURLE_OK) return rc;
    return BX_SETOPT(h, CURLOPT_POSTFIELDS, bytes ? bytes : "");
}
/// A method other than POST (the body is still sent).
static inline CURLcode bx_curl_set_method(CURL *h, const char *method) {
    return BX_SETOPT(h, CURLOPT_CUSTOMREQUEST, method);
}
static inline CURLcode bx_curl_set_headers(CURL *h, struct curl_slist *list) {
    return BX_SETOPT(h, CURLOPT_HTTPHEADER, list);
}
static inline CURLcode bx_curl_set_user_agent(CURL *h, const char *agent) {
    return BX_SETOPT(h, CURLOPT_USERAGENT, agent);
}
/// The whole transfer, connecting included, in milliseconds.
static inline CURLcode bx_curl_set_timeout_ms(CURL *h, long ms) {
    CURLcode rc = BX_SETOPT(h, CURLOPT_TIMEOUT_MS, ms);
    if (rc != CURLE_OK) return rc;
    return BX_SETOPT(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
}
/// No signals (SIGALRM for DNS timeouts, SIGPIPE): curl runs on a worker thread of a
/// program with its own signal handling.
static inline CURLcode bx_curl_set_no_signal(CURL *h) {
    return BX_SETOPT(h, CURLOPT_NOSIGNAL, 1L);
}
static inline CURLcode bx_curl_set_no_redirects(CURL *h) {
    return BX_SETOPT(h, CURLOPT_FOLLOWLOCATION, 0L);
}
static inline CURLcode bx_curl_set_write(CURL *h, curl_write_callback f, void *userdata) {
    CURLcode rc = BX_SETOPT(h, CURLOPT_WRITEFUNCTION, f);
    if (rc != CURLE_OK) return rc;
    return BX_SETOPT(h, CURLOPT_WRITEDATA, userdata);
}
/// The last response's status code (0: none).
static inline long bx_curl_response_code(CURL *h) {
    long code = 0;
    if (!bx_curl() || bx_curl()->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK) return 0;
    return code;
}
#endif
