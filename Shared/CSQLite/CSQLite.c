#include "CSQLite.h"

#include <pthread.h>

static int configured = SQLITE_OK;

static void configure(void) {
    configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (configured != SQLITE_OK) return;
    configured = sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, -16384);
}

int orderly_sqlite3_configure(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, configure);
    return configured;
}
