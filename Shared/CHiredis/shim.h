#ifndef ORDERLY_CHIREDIS_SHIM_H
#define ORDERLY_CHIREDIS_SHIM_H
// hiredis 0.14 (Debian 12's libhiredis-dev). Only its non-variadic calls are used from Swift
// (redisAppendFormattedCommand, redisGetReply, …): the variadic redisCommand cannot be called.
#include <hiredis/hiredis.h>
#endif
