#include <sqlite3.h>

/// Process-wide settings, applied before SQLite initializes (sqlite3_config is variadic, which
/// Swift cannot call):
/// - no memory statistics: they take a global mutex around every allocation;
/// - each connection takes its first 16 MiB of page cache in one allocation rather than a
///   malloc per page;
/// - the page cache is SQLite's own, wrapped (`orderly_pcache_methods`);
/// and registers the VFS `ORDERLY_SQLITE_VFS`.
/// Runs once; every call returns the first one's result (SQLITE_MISUSE when SQLite had already
/// initialized; the VFS is registered then too).
int orderly_sqlite3_configure(void);

/// The name of a VFS that is the system's default except in how it writes a WAL: SQLite writes
/// each frame of a commit in two calls (its header, its page), and this VFS holds them back and
/// writes the whole commit in one, before SQLite publishes the commit to readers. A busy writer
/// made some 37 `pwrite` calls a commit, a seventh of its time.
#define ORDERLY_SQLITE_VFS "orderly"

/// The page cache SQLite uses once `orderly_sqlite3_configure` ran: its own (pcache1), with
/// one costly no-op skipped. At the end of every write transaction SQLite drops cached pages past
/// the end of the database (`xTruncate`). pcache1 remembers only the largest page number it held
/// since the last truncation, and when that is far past the end it walks its whole hash table.
/// A b-tree split that renumbers pages parks one on the lock-byte page (number 262,145 with
/// 4 KiB pages) for a moment, so after any such split the next commit walked every cached page
/// to remove nothing: on a busy writer with a 64 MiB cache, a twelfth of its time. The wrapper
/// tracks the largest number in use itself, the parking page apart, and passes a truncation on
/// only when a page at or past the limit may be cached.
const sqlite3_pcache_methods2 *orderly_pcache_methods(void);
