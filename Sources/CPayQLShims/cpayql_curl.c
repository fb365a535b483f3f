// Typed wrappers over libcurl's variadic functions; see cpayql_curl.h for why each exists.
#include "cpayql_curl.h"

CURLcode cpayql_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode cpayql_curl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode cpayql_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode cpayql_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode cpayql_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode cpayql_curl_easy_setopt_data_callback(CURL *easy, CURLoption option, cpayql_curl_data_callback value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode cpayql_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode cpayql_curl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode cpayql_curl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLMcode cpayql_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURL *cpayql_curl_message_easy(const CURLMsg *message, CURLcode *result) {
    if (result != NULL) {
        *result = message->msg == CURLMSG_DONE ? message->data.result : CURLE_OK;
    }
    return message->easy_handle;
}
