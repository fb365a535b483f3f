#include "cpayql_curl.h"
