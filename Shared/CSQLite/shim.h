#include <sqlite3.h>

/// Process-wide settings, applied before SQLite initializes (sqlite3_config is variadic, which
/// Swift cannot call). No memory statistics: they take a global mutex around every allocation.
/// Each connection takes its first 16 MiB of page cache in one allocation rather than a
/// malloc per page. Returns SQLITE_MISUSE when SQLite was already initialized.
static inline int orderly_sqlite3_configure(void) {
    int status = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (status != SQLITE_OK) return status;
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, -16384);
}
