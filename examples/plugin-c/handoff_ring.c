/*
 * handoff_ring.c — a batched single-producer single-consumer ring in C11, as a handoff plugin.
 *
 * This file is two things:
 *
 *  - handoff's built-in `c-ring` transport, the hand-rolled entry the library queues are measured
 *    against: the handoff-peers crate compiles it with -DHANDOFF_RING_ENTRY=handoff_peer_c_ring
 *    and links it into handoff itself.
 *  - a complete, minimal plugin. Built on its own it exports `handoff_plugin_entry` and names its
 *    transport `c-ring-plugin`, so that it can be loaded beside the built-in one:
 *
 *        cc -std=c11 -O2 -shared -fPIC -I include \
 *           -o libhandoff_ring.so examples/plugin-c/handoff_ring.c
 *
 * Everything a plugin must do is here: the table of transports (at the end of the file), and
 * for each transport `create`, `try_push`, `try_pop` and `destroy`, with the optional batch
 * calls `try_push_batch` and `drain`. include/handoff.h states the contract.
 *
 * The ring. Two counters, `tail` (blocks published by the producer) and `head` (blocks released
 * by the consumer), only ever grow; block i lives in slot i & (capacity - 1), and the ring holds
 * tail - head blocks (unsigned arithmetic makes the counters' wrap-around harmless). Each side
 * writes its own counter on a cache line of its own and keeps, on that same line, the other
 * side's counter as it last read it; it reads the other side's line again only when that copy
 * says the ring is full (producer) or empty (consumer). In a steady stream most calls touch no
 * line the other side writes. A batch is copied with at most two memcpy (the second when it wraps
 * past the end of the slots) and published, or released, with one store.
 */
#include "handoff.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name the entry point is exported under, and the transport's name. */
#ifdef HANDOFF_RING_ENTRY
#define RING_NAME "c-ring"
#else
#define HANDOFF_RING_ENTRY handoff_plugin_entry
#define RING_NAME "c-ring-plugin"
#endif

#define CACHE_LINE 64

struct ring {
    /* The producer's line. */
    alignas(CACHE_LINE) _Atomic size_t tail; /* blocks published */
    size_t head_seen;                        /* `head` as the producer last read it */

    /* The consumer's line. */
    alignas(CACHE_LINE) _Atomic size_t head; /* blocks released */
    size_t tail_seen;                        /* `tail` as the consumer last read it */

    /* Read-only once created. */
    alignas(CACHE_LINE) size_t mask; /* capacity - 1 */
    size_t size;                     /* bytes per block */
    unsigned char *slots;            /* capacity * size bytes */
};

/* Writes a one-line reason for a failed `create` and returns NULL. */
static void *refuse(char *error, size_t error_len, const char *format, ...) {
    if (error_len > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(error, error_len, format, args);
        va_end(args);
    }
    return NULL;
}

static void *ring_create(uint64_t capacity, uint32_t message_size, uint32_t producers,
                         uint32_t consumers, char *error, size_t error_len) {
    if (producers != 1 || consumers != 1)
        return refuse(error, error_len, "one producer and one consumer only (asked for %u and %u)",
                      producers, consumers);
    if (capacity == 0 || (capacity & (capacity - 1)) != 0)
        return refuse(error, error_len, "capacity %llu is not a power of two",
                      (unsigned long long)capacity);
    if (message_size == 0 || capacity > SIZE_MAX / message_size)
        return refuse(error, error_len, "%llu blocks of %u bytes do not fit in memory",
                      (unsigned long long)capacity, message_size);

    struct ring *r = aligned_alloc(CACHE_LINE, sizeof *r); /* sizeof is a multiple of 64 */
    unsigned char *slots = malloc((size_t)capacity * message_size);
    if (r == NULL || slots == NULL) {
        free(r);
        free(slots);
        return refuse(error, error_len, "out of memory for %llu blocks of %u bytes",
                      (unsigned long long)capacity, message_size);
    }
    atomic_init(&r->tail, 0);
    atomic_init(&r->head, 0);
    r->head_seen = 0;
    r->tail_seen = 0;
    r->mask = (size_t)capacity - 1;
    r->size = message_size;
    r->slots = slots;
    return r;
}

/* Room for how many more blocks, reading the consumer's counter again only if the last copy
 * shows less than `wanted`. */
static size_t room(struct ring *r, size_t tail, size_t wanted) {
    size_t free_slots = r->mask + 1 - (tail - r->head_seen);
    if (free_slots < wanted) {
        r->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
        free_slots = r->mask + 1 - (tail - r->head_seen);
    }
    return free_slots;
}

/* Blocks ready to pop, reading the producer's counter again only if the last copy shows fewer
 * than `wanted`. */
static size_t ready(struct ring *r, size_t head, size_t wanted) {
    size_t filled = r->tail_seen - head;
    if (filled < wanted) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        filled = r->tail_seen - head;
    }
    return filled;
}

static int ring_try_push(void *queue, const void *message) {
    struct ring *r = queue;
    size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (room(r, tail, 1) == 0)
        return 0;
    memcpy(r->slots + (tail & r->mask) * r->size, message, r->size);
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release); /* publish */
    return 1;
}

static int ring_try_pop(void *queue, void *out) {
    struct ring *r = queue;
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (ready(r, head, 1) == 0)
        return 0;
    memcpy(out, r->slots + (head & r->mask) * r->size, r->size);
    atomic_store_explicit(&r->head, head + 1, memory_order_release); /* release the slot */
    return 1;
}

/* The first of the (at most) two stretches of slots that `n` blocks from counter `at` occupy:
 * how many blocks fit before the end of the slots. */
static size_t first_stretch(const struct ring *r, size_t at, size_t n) {
    size_t to_end = r->mask + 1 - (at & r->mask);
    return n < to_end ? n : to_end;
}

static size_t ring_try_push_batch(void *queue, const void *messages, size_t n) {
    struct ring *r = queue;
    size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    size_t free_slots = room(r, tail, n);
    if (n > free_slots)
        n = free_slots;
    if (n == 0)
        return 0;
    size_t first = first_stretch(r, tail, n);
    const unsigned char *in = messages;
    memcpy(r->slots + (tail & r->mask) * r->size, in, first * r->size);
    memcpy(r->slots, in + first * r->size, (n - first) * r->size);
    atomic_store_explicit(&r->tail, tail + n, memory_order_release); /* publish all n at once */
    return n;
}

static size_t ring_drain(void *queue, void *out, size_t max) {
    struct ring *r = queue;
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t n = ready(r, head, max);
    if (n > max)
        n = max;
    if (n == 0)
        return 0;
    size_t first = first_stretch(r, head, n);
    unsigned char *to = out;
    memcpy(to, r->slots + (head & r->mask) * r->size, first * r->size);
    memcpy(to + first * r->size, r->slots, (n - first) * r->size);
    atomic_store_explicit(&r->head, head + n, memory_order_release); /* release all n at once */
    return n;
}

static void ring_destroy(void *queue) {
    struct ring *r = queue;
    free(r->slots); /* blocks are plain bytes: nothing else to free */
    free(r);
}

/* The table handoff reads. Fields not set (blocking `push` and `pop`, `close`) are NULL: the ring
 * never waits, handoff retries the non-blocking calls itself. */
static const handoff_transport transports[] = {{
    .name = RING_NAME,
    .description = "hand-rolled batched SPSC ring in C11 (cached counters, one store per batch), "
                   "blocks copied with memcpy",
    .language = "C",
    .producers = HANDOFF_ONE,
    .consumers = HANDOFF_ONE,
    .ordering = HANDOFF_FIFO,
    .flags = HANDOFF_POWER_OF_TWO,
    .min_capacity = 1,
    .create = ring_create,
    .try_push = ring_try_push,
    .try_push_batch = ring_try_push_batch,
    .try_pop = ring_try_pop,
    .drain = ring_drain,
    .destroy = ring_destroy,
}};

static const handoff_plugin plugin = {
    .abi_version = HANDOFF_ABI_VERSION,
    .transport_size = sizeof(handoff_transport),
    .name = RING_NAME,
    .count = sizeof transports / sizeof transports[0],
    .transports = transports,
};

const handoff_plugin *HANDOFF_RING_ENTRY(void);

const handoff_plugin *HANDOFF_RING_ENTRY(void) {
    return &plugin;
}
