/*
 * handoff.h — the C ABI of a handoff transport plugin.
 *
 * A plugin is a shared library (C, C++, Go, Nim, Zig, ...) that exports one function,
 * `handoff_plugin_entry`, returning a table of transports. handoff loads the library only inside
 * the worker process of each trial, so a plugin that crashes or hangs costs that trial (verdict
 * `crashed` or `hung`), never the run. See docs/plugins.md for the whole contract and
 * examples/plugin-c/ for a complete plugin.
 *
 * Messages. A message is a block of `message_size` bytes (the size is given to `create`; it is
 * the payload's size, plus 16 bytes of latency stamps in open-loop runs). The transport moves
 * blocks and never looks inside: what it delivers must be byte-for-byte what was pushed. The
 * harness writes and checks every byte (a header with producer id and sequence number, and a
 * body derived from them), so a lost, duplicated, reordered or corrupted block is caught.
 * Every block pointer handoff passes is aligned to 8 bytes; a batch is `n` blocks laid out
 * back to back (`n * message_size` bytes).
 *
 * Threads. `create` and `destroy` run on one thread, with no other call in flight. `try_push`,
 * `try_push_batch` and `push` run on producer threads (one at a time per producer; several
 * producers at once only for HANDOFF_MANY producers); `try_pop`, `drain` and `pop` on consumer
 * threads, likewise. `close` runs once, after every producer's last push returned.
 *
 * Waiting. The non-blocking calls (`try_*`, `drain`) never wait: handoff retries them itself,
 * spinning and yielding the time slice now and then, and counts each failed attempt. A transport
 * that can wait by itself provides `push` and/or `pop`, which block (and then the transport's
 * declared wait strategy is `block`). A blocking `pop` must return 0 once `close` has been called
 * and nothing is left, so such a transport must provide `close`.
 *
 * Versioning. `abi_version` must be HANDOFF_ABI_VERSION and `transport_size` must be
 * sizeof(handoff_transport) as this header defines it; handoff refuses a plugin built against
 * another version of this header, before any trial runs.
 */
#ifndef HANDOFF_H
#define HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this ABI. Incremented on any incompatible change. */
#define HANDOFF_ABI_VERSION 1u

/* The name of the entry point a plugin exports. */
#define HANDOFF_ENTRY_POINT "handoff_plugin_entry"

/* How many producers or consumers a transport takes. */
#define HANDOFF_ONE 1u  /* exactly one */
#define HANDOFF_MANY 2u /* any number (each handle used by one thread at a time) */

/* The order in which the consumer sees messages. */
#define HANDOFF_FIFO 1u              /* one global order: the order pushes completed */
#define HANDOFF_FIFO_PER_PRODUCER 2u /* each producer's messages in its own order */
#define HANDOFF_UNORDERED 3u         /* no order promised; every message exactly once */

/* Bits of handoff_transport.flags. */
#define HANDOFF_UNBOUNDED 1u     /* grows without limit; the capacity is a hint at most */
#define HANDOFF_POWER_OF_TWO 2u  /* a bounded transport whose capacity must be a power of two */

/* One transport of a plugin. Unused optional functions are NULL. */
typedef struct handoff_transport {
    /* Name on the command line and in suite files: lowercase letters, digits and '-', unique
     * among every transport handoff knows. */
    const char *name;
    /* One line on what is measured. */
    const char *description;
    /* The language the transport is written in ("C", "C++", "Go", ...), shown with its results. */
    const char *language;

    uint32_t producers;    /* HANDOFF_ONE or HANDOFF_MANY */
    uint32_t consumers;    /* HANDOFF_ONE or HANDOFF_MANY */
    uint32_t ordering;     /* HANDOFF_FIFO, HANDOFF_FIFO_PER_PRODUCER or HANDOFF_UNORDERED */
    uint32_t flags;        /* HANDOFF_UNBOUNDED, HANDOFF_POWER_OF_TWO, or 0 */
    uint64_t min_capacity; /* smallest capacity a bounded transport accepts (0: a rendezvous) */

    /* Creates one queue for `producers` producers and `consumers` consumers, holding up to
     * `capacity` blocks of `message_size` bytes. Returns NULL on failure, with a reason (one
     * line, NUL-terminated) written to `error` (`error_len` bytes); a message size or capacity
     * the transport cannot take is such a failure, reported as `unsupported`. Required. */
    void *(*create)(uint64_t capacity, uint32_t message_size, uint32_t producers,
                    uint32_t consumers, char *error, size_t error_len);

    /* Pushes one block if there is room: 1 pushed, 0 full. Required. */
    int (*try_push)(void *queue, const void *message);
    /* Pushes up to `n` blocks if there is room, in order, publishing them at once; returns how
     * many were pushed (0 when full). Optional. */
    size_t (*try_push_batch)(void *queue, const void *messages, size_t n);
    /* Pops one block into `out` if there is one: 1 popped, 0 empty. Required. */
    int (*try_pop)(void *queue, void *out);
    /* Pops up to `max` blocks into `out` (room for `max` blocks), releasing their slots at once;
     * returns how many were popped (0 when empty). Never waits. Optional. */
    size_t (*drain)(void *queue, void *out, size_t max);

    /* Pushes one block, waiting for room: 1 pushed, 0 if the queue was closed. Optional. */
    int (*push)(void *queue, const void *message);
    /* Pops one block into `out`, waiting for one: 1 popped, 0 once the queue is closed and
     * empty. Optional; requires `close`. */
    int (*pop)(void *queue, void *out);

    /* Every producer has pushed its last block: a waiting `pop` must wake up, drain what is
     * left, then return 0. Optional (required with `pop`). */
    void (*close)(void *queue);
    /* Frees the queue and any block still in it. Required. */
    void (*destroy)(void *queue);
} handoff_transport;

/* What handoff_plugin_entry returns: a table that lives as long as the process. */
typedef struct handoff_plugin {
    uint32_t abi_version;    /* HANDOFF_ABI_VERSION */
    uint32_t transport_size; /* sizeof(handoff_transport) */
    const char *name;        /* the plugin's name, shown in listings */
    size_t count;            /* number of transports */
    const handoff_transport *transports;
} handoff_plugin;

/* The entry point every plugin exports. Called once per process; must not fail (return NULL
 * only if the plugin cannot work at all). */
const handoff_plugin *handoff_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* HANDOFF_H */
