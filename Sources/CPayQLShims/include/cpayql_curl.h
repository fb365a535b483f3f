// libcurl shims (owned by HTTPClient): curl_easy_setopt and friends are variadic.
#ifndef CPAYQL_CURL_H
#define CPAYQL_CURL_H
#include <curl/curl.h>
#endif
