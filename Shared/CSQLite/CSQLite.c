#include "CSQLite.h"

#include <pthread.h>

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

int orderly_sqlite3_configure(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, configure);
    return configured;
}
