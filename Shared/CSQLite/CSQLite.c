#include "CSQLite.h"

#include <pthread.h>
#include <string.h>

/// pcache1's methods, as SQLite had them before `orderly_sqlite3_configure` replaced them.
static sqlite3_pcache_methods2 inner;

typedef struct wrapped_cache {
    sqlite3_pcache *inner;
    /// The lock-byte page's number for this cache's page size, where splits park pages.
    unsigned int parking_page;
    /// Every cached page's number is at most this, the parking page's apart.
    unsigned int largest;
    /// Whether a page may be cached under the parking page's number.
    int parked;
} wrapped_cache;

static int wrapped_init(void *argument) {
    (void)argument;
    return inner.xInit(inner.pArg);
}

static void wrapped_shutdown(void *argument) {
    (void)argument;
    inner.xShutdown(inner.pArg);
}

static sqlite3_pcache *wrapped_create(int page_size, int extra_size, int purgeable) {
    wrapped_cache *cache = sqlite3_malloc(sizeof(wrapped_cache));
    if (cache == 0) return 0;
    cache->inner = inner.xCreate(page_size, extra_size, purgeable);
    if (cache->inner == 0) {
        sqlite3_free(cache);
        return 0;
    }
    // SQLite's PENDING_BYTE (0x40000000) over the page size, plus one.
    cache->parking_page = (unsigned int)(0x40000000 / page_size) + 1;
    cache->largest = 0;
    cache->parked = 0;
    return (sqlite3_pcache *)cache;
}

static void wrapped_cachesize(sqlite3_pcache *cache, int pages) {
    inner.xCachesize(((wrapped_cache *)cache)->inner, pages);
}

static int wrapped_pagecount(sqlite3_pcache *cache) {
    return inner.xPagecount(((wrapped_cache *)cache)->inner);
}

/// Notes that a page numbered `key` may now be cached.
static void note(wrapped_cache *cache, unsigned int key) {
    if (key == cache->parking_page) {
        cache->parked = 1;
    } else if (key > cache->largest) {
        cache->largest = key;
    }
}

static sqlite3_pcache_page *wrapped_fetch(sqlite3_pcache *cache, unsigned int key, int create) {
    wrapped_cache *own = (wrapped_cache *)cache;
    sqlite3_pcache_page *page = inner.xFetch(own->inner, key, create);
    if (page != 0) note(own, key);
    return page;
}

static void wrapped_unpin(sqlite3_pcache *cache, sqlite3_pcache_page *page, int discard) {
    inner.xUnpin(((wrapped_cache *)cache)->inner, page, discard);
}

static void wrapped_rekey(sqlite3_pcache *cache, sqlite3_pcache_page *page, unsigned int old_key, unsigned int new_key) {
    wrapped_cache *own = (wrapped_cache *)cache;
    inner.xRekey(own->inner, page, old_key, new_key);
    // Keys are unique in a cache: the page that leaves the parking number was the one on it.
    if (old_key == own->parking_page) own->parked = 0;
    note(own, new_key);
}

static void wrapped_truncate(sqlite3_pcache *cache, unsigned int limit) {
    wrapped_cache *own = (wrapped_cache *)cache;
    int parked_past = own->parked && own->parking_page >= limit;
    if (own->largest < limit && !parked_past) return;
    inner.xTruncate(own->inner, limit);
    if (own->largest >= limit) own->largest = limit == 0 ? 0 : limit - 1;
    if (parked_past) own->parked = 0;
}

static void wrapped_destroy(sqlite3_pcache *cache) {
    inner.xDestroy(((wrapped_cache *)cache)->inner);
    sqlite3_free(cache);
}

static void wrapped_shrink(sqlite3_pcache *cache) {
    inner.xShrink(((wrapped_cache *)cache)->inner);
}

static const sqlite3_pcache_methods2 wrapped = {
    .iVersion = 1,
    .pArg = 0,
    .xInit = wrapped_init,
    .xShutdown = wrapped_shutdown,
    .xCreate = wrapped_create,
    .xCachesize = wrapped_cachesize,
    .xPagecount = wrapped_pagecount,
    .xFetch = wrapped_fetch,
    .xUnpin = wrapped_unpin,
    .xRekey = wrapped_rekey,
    .xTruncate = wrapped_truncate,
    .xDestroy = wrapped_destroy,
    .xShrink = wrapped_shrink,
};

const sqlite3_pcache_methods2 *orderly_pcache_methods(void) { return &wrapped; }

// MARK: - The WAL's writes, a commit's frames in one call

/// The VFS `orderly_sqlite3_configure` registers: the system's default, with WAL files wrapped.
static sqlite3_vfs wal_vfs;
static sqlite3_vfs *system_vfs;

/// Frames are held back (up to this many bytes) only until their commit is complete.
#define WAL_BUFFER_LIMIT (1 << 20)
#define WAL_FRAME_HEADER 24
#define WAL_WRITE_LIMIT (124 * 1024)

typedef struct wal_file {
    sqlite3_file base;
    /// The system VFS's file, in the memory after this struct.
    sqlite3_file *inner;
    /// Bytes held back, meant for the file from `start` on.
    unsigned char *buffer;
    sqlite3_int64 start;
    int length;
    int capacity;
    /// The last write held back was a frame's header; its page comes next.
    int awaiting_page;
    /// That header marks its frame as a transaction's last (a commit).
    int commit;
} wal_file;

// The system VFS's file follows a wal_file in memory; this keeps it aligned.
_Static_assert(sizeof(wal_file) % 8 == 0, "wal_file must keep the file after it 8-byte aligned");

/// Writes what is held back; forgets it either way (on failure SQLite fails the transaction the
/// frames belonged to, which no reader ever saw).
static int wal_flush(wal_file *wal) {
    wal->awaiting_page = 0;
    wal->commit = 0;
    int status = SQLITE_OK;
    // In pieces: the unix VFS writes at most 128 KiB - 1 bytes a call (and fails longer writes).
    for (int written = 0; written < wal->length && status == SQLITE_OK; written += WAL_WRITE_LIMIT) {
        int piece = wal->length - written < WAL_WRITE_LIMIT ? wal->length - written : WAL_WRITE_LIMIT;
        status = wal->inner->pMethods->xWrite(wal->inner, wal->buffer + written, piece, wal->start + written);
    }
    wal->start += wal->length;
    wal->length = 0;
    return status;
}

/// Holds `amount` bytes back; false when the buffer cannot grow (the caller writes them itself).
static int wal_hold(wal_file *wal, const void *data, int amount, sqlite3_int64 offset) {
    if (wal->length == 0) wal->start = offset;
    if (wal->length + amount > wal->capacity) {
        int capacity = wal->capacity == 0 ? 64 * 1024 : wal->capacity;
        while (capacity < wal->length + amount) capacity *= 2;
        unsigned char *grown = sqlite3_realloc(wal->buffer, capacity);
        if (grown == 0) return 0;
        wal->buffer = grown;
        wal->capacity = capacity;
    }
    memcpy(wal->buffer + wal->length, data, (size_t)amount);
    wal->length += amount;
    return 1;
}

/// SQLite writes a frame as two calls, its 24-byte header and then its page, frame after frame,
/// and the commit's frame last. Those pairs are held back and written in one call when the
/// commit frame's page arrives: before SQLite goes on to publish the commit to readers (the
/// wal-index), so every frame a reader may look for is in the file, as without the buffer. Any
/// other write, and any other call on the file, first writes what is held back.
static int wal_write(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    wal_file *wal = (wal_file *)file;
    int follows = wal->length > 0 && offset == wal->start + wal->length;
    if (amount == WAL_FRAME_HEADER && !wal->awaiting_page) {
        const unsigned char *header = data;
        // Bytes 4–7: the database's size in pages after the commit, zero in other frames.
        int commit = (header[4] | header[5] | header[6] | header[7]) != 0;
        if (follows && wal->length + WAL_FRAME_HEADER + 65536 > WAL_BUFFER_LIMIT) {
            int status = wal_flush(wal);
            if (status != SQLITE_OK) return status;
            follows = 0;
        }
        // A commit frame starting a buffer is written at once: it is either a commit of one
        // page or a header SQLite rewrites (new checksums) with no page after it.
        if ((follows || (wal->length == 0 && !commit)) && wal_hold(wal, data, amount, offset)) {
            wal->awaiting_page = 1;
            wal->commit = commit;
            return SQLITE_OK;
        }
    } else if (wal->awaiting_page && follows && wal_hold(wal, data, amount, offset)) {
        wal->awaiting_page = 0;
        return wal->commit ? wal_flush(wal) : SQLITE_OK;
    }
    int status = wal_flush(wal);
    if (status != SQLITE_OK) return status;
    return wal->inner->pMethods->xWrite(wal->inner, data, amount, offset);
}

static int wal_close(sqlite3_file *file) {
    wal_file *wal = (wal_file *)file;
    int flushed = wal_flush(wal);
    int closed = wal->inner->pMethods->xClose(wal->inner);
    sqlite3_free(wal->buffer);
    wal->buffer = 0;
    return flushed != SQLITE_OK ? flushed : closed;
}

static int wal_read(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    wal_file *wal = (wal_file *)file;
    int status = wal_flush(wal);
    return status != SQLITE_OK ? status : wal->inner->pMethods->xRead(wal->inner, data, amount, offset);
}

static int wal_truncate(sqlite3_file *file, sqlite3_int64 size) {
    wal_file *wal = (wal_file *)file;
    int status = wal_flush(wal);
    return status != SQLITE_OK ? status : wal->inner->pMethods->xTruncate(wal->inner, size);
}

static int wal_sync(sqlite3_file *file, int flags) {
    wal_file *wal = (wal_file *)file;
    int status = wal_flush(wal);
    return status != SQLITE_OK ? status : wal->inner->pMethods->xSync(wal->inner, flags);
}

static int wal_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    wal_file *wal = (wal_file *)file;
    int status = wal_flush(wal);
    return status != SQLITE_OK ? status : wal->inner->pMethods->xFileSize(wal->inner, size);
}

static int wal_lock(sqlite3_file *file, int level) {
    wal_file *wal = (wal_file *)file;
    int status = wal_flush(wal);
    return status != SQLITE_OK ? status : wal->inner->pMethods->xLock(wal->inner, level);
}

static int wal_unlock(sqlite3_file *file, int level) {
    wal_file *wal = (wal_file *)file;
    int status = wal_flush(wal);
    return status != SQLITE_OK ? status : wal->inner->pMethods->xUnlock(wal->inner, level);
}

static int wal_check_reserved_lock(sqlite3_file *file, int *reserved) {
    wal_file *wal = (wal_file *)file;
    return wal->inner->pMethods->xCheckReservedLock(wal->inner, reserved);
}

static int wal_file_control(sqlite3_file *file, int operation, void *argument) {
    wal_file *wal = (wal_file *)file;
    int status = wal_flush(wal);
    return status != SQLITE_OK ? status : wal->inner->pMethods->xFileControl(wal->inner, operation, argument);
}

static int wal_sector_size(sqlite3_file *file) {
    wal_file *wal = (wal_file *)file;
    return wal->inner->pMethods->xSectorSize(wal->inner);
}

static int wal_device_characteristics(sqlite3_file *file) {
    wal_file *wal = (wal_file *)file;
    return wal->inner->pMethods->xDeviceCharacteristics(wal->inner);
}

/// A WAL file's methods: version 1, as SQLite needs no more of a WAL (shared memory and memory
/// maps belong to the database file).
static const sqlite3_io_methods wal_methods = {
    .iVersion = 1,
    .xClose = wal_close,
    .xRead = wal_read,
    .xWrite = wal_write,
    .xTruncate = wal_truncate,
    .xSync = wal_sync,
    .xFileSize = wal_file_size,
    .xLock = wal_lock,
    .xUnlock = wal_unlock,
    .xCheckReservedLock = wal_check_reserved_lock,
    .xFileControl = wal_file_control,
    .xSectorSize = wal_sector_size,
    .xDeviceCharacteristics = wal_device_characteristics,
};

static int wal_vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    // Every other file is the system VFS's own, in the same memory.
    if ((flags & SQLITE_OPEN_WAL) == 0) return system_vfs->xOpen(system_vfs, name, file, flags, out_flags);
    wal_file *wal = (wal_file *)file;
    memset(wal, 0, sizeof(wal_file));
    wal->inner = (sqlite3_file *)(wal + 1);
    int status = system_vfs->xOpen(system_vfs, name, wal->inner, flags, out_flags);
    // SQLite closes a file through its methods only when it has some.
    wal->base.pMethods = wal->inner->pMethods != 0 ? &wal_methods : 0;
    return status;
}

static void register_wal_vfs(void) {
    system_vfs = sqlite3_vfs_find(0);
    if (system_vfs == 0) return;
    wal_vfs = *system_vfs;
    wal_vfs.pNext = 0;
    wal_vfs.zName = ORDERLY_SQLITE_VFS;
    wal_vfs.szOsFile = (int)sizeof(wal_file) + system_vfs->szOsFile;
    wal_vfs.xOpen = wal_vfs_open;
    sqlite3_vfs_register(&wal_vfs, 0);
}

static int configured = SQLITE_OK;

static void configure(void) {
    configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (configured != SQLITE_OK) return;
    configured = sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, -16384);
    if (configured != SQLITE_OK) return;
    configured = sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &inner);
    if (configured != SQLITE_OK) return;
    configured = sqlite3_config(SQLITE_CONFIG_PCACHE2, &wrapped);
}

static void configure_and_register(void) {
    configure();
    register_wal_vfs();
}

int orderly_sqlite3_configure(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, configure_and_register);
    return configured;
}
