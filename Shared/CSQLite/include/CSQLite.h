#include <sqlite3.h>

/// Process-wide settings, applied before SQLite initializes (`sqlite3_config` is variadic, which
/// Swift cannot call), both documented options of SQLite's C interface:
/// - `SQLITE_CONFIG_MEMSTATUS` off: no memory statistics, which take a global mutex around every
///   allocation;
/// - `SQLITE_CONFIG_PAGECACHE` with no buffer and a negative count: each connection takes the
///   first 16 MiB of its page cache in one allocation rather than one allocation per page.
/// Runs once; every call returns the first one's result (SQLITE_MISUSE when SQLite had already
/// initialized, in which case its defaults stay).
int orderly_sqlite3_configure(void);
