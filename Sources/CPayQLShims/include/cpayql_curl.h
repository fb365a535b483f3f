// libcurl shims (owned by HTTPClient): curl_easy_setopt, curl_easy_getinfo and
// curl_multi_setopt are variadic, which Swift refuses to call. Each wrapper fixes
// the type of the one variadic argument, so the Swift side stays type-checked.
#ifndef CPAYQL_CURL_H
#define CPAYQL_CURL_H
#include <curl/curl.h>

/// The signature of CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*cpayql_curl_data_callback)(char *data, size_t size, size_t count, void *user);

// Sets an option whose value is a `long` (timeouts, flags, versions): variadic in C.
CURLcode cpayql_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
// Sets an option whose value is a `curl_off_t` (the *_LARGE sizes): variadic in C.
CURLcode cpayql_curl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value);
// Sets an option whose value is a C string (URL, user agent, method; copied by libcurl): variadic in C.
CURLcode cpayql_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
// Sets an option whose value is an opaque pointer (user data, error buffer, POST bytes): variadic in C.
CURLcode cpayql_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
// Sets an option whose value is a header list: variadic in C.
CURLcode cpayql_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value);
// Sets the write or header callback; a function pointer cannot travel as `void *` portably: variadic in C.
CURLcode cpayql_curl_easy_setopt_data_callback(CURL *easy, CURLoption option, cpayql_curl_data_callback value);
// Reads a `long` piece of transfer information (status, HTTP version, connects): variadic in C.
CURLcode cpayql_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
// Reads a `curl_off_t` piece of transfer information (the *_TIME_T timings): variadic in C.
CURLcode cpayql_curl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value);
// Reads a pointer piece of transfer information (CURLINFO_PRIVATE): variadic in C.
CURLcode cpayql_curl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value);
// Sets a multi option whose value is a `long` (connection limits, multiplexing): variadic in C.
CURLMcode cpayql_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
// Reads the easy handle and result out of a CURLMsg: `data` is a C union Swift imports awkwardly.
CURL *cpayql_curl_message_easy(const CURLMsg *message, CURLcode *result);

#endif
