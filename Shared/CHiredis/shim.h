#ifndef ORDERLY_CHIREDIS_SHIM_H
#define ORDERLY_CHIREDIS_SHIM_H
// hiredis 0.14 (Debian 12's libhiredis-dev). Only the argv forms of its calls are used from
// Swift: the variadic redisCommand cannot be called from Swift.
#include <hiredis/hiredis.h>
#endif
