#include "cpayql_mhd.h"
