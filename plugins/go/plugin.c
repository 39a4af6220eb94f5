/* The plugin's table: handoff's C ABI (include/handoff.h) over the Go functions of handoff.go.
 * The wrappers only turn a handle (an index, never a Go pointer) into a void pointer and back. */
#include "handoff.h"
#include "_cgo_export.h"

static void *chan_create(uint64_t capacity, uint32_t message_size, uint32_t producers,
                         uint32_t consumers, char *error, size_t error_len) {
    return (void *)goChanCreate(capacity, message_size, producers, consumers, error, error_len);
}

static void *rendezvous_create(uint64_t capacity, uint32_t message_size, uint32_t producers,
                               uint32_t consumers, char *error, size_t error_len) {
    return (void *)goRendezvousCreate(capacity, message_size, producers, consumers, error,
                                      error_len);
}

static int try_push(void *q, const void *message) {
    return goTryPush((uintptr_t)q, (void *)message);
}

static size_t try_push_batch(void *q, const void *messages, size_t n) {
    return goTryPushBatch((uintptr_t)q, (void *)messages, n);
}

static int try_pop(void *q, void *out) { return goTryPop((uintptr_t)q, out); }

static size_t drain(void *q, void *out, size_t max) { return goDrain((uintptr_t)q, out, max); }

static int push(void *q, const void *message) { return goPush((uintptr_t)q, (void *)message); }

static int pop(void *q, void *out) { return goPop((uintptr_t)q, out); }

static void close_queue(void *q) { goClose((uintptr_t)q); }

static void destroy(void *q) { goDestroy((uintptr_t)q); }

static const handoff_transport transports[] = {
    {
        .name = "go-chan",
        .description = "buffered Go channel (chan [N]byte); each call crosses from C into Go, "
                       "batches in one crossing",
        .language = "Go",
        .producers = HANDOFF_MANY,
        .consumers = HANDOFF_MANY,
        .ordering = HANDOFF_FIFO,
        .flags = 0,
        .min_capacity = 1,
        .create = chan_create,
        .try_push = try_push,
        .try_push_batch = try_push_batch,
        .try_pop = try_pop,
        .drain = drain,
        .push = push,
        .pop = pop,
        .close = close_queue,
        .destroy = destroy,
    },
    {
        .name = "go-chan-rendezvous",
        .description = "unbuffered Go channel: a send completes only with a waiting receive",
        .language = "Go",
        .producers = HANDOFF_MANY,
        .consumers = HANDOFF_MANY,
        .ordering = HANDOFF_FIFO,
        .flags = 0,
        .min_capacity = 0,
        .create = rendezvous_create,
        .try_push = try_push,
        .try_push_batch = try_push_batch,
        .try_pop = try_pop,
        .drain = drain,
        .push = push,
        .pop = pop,
        .close = close_queue,
        .destroy = destroy,
    },
};

static const handoff_plugin plugin = {
    .abi_version = HANDOFF_ABI_VERSION,
    .transport_size = sizeof(handoff_transport),
    .name = "go",
    .count = sizeof transports / sizeof transports[0],
    .transports = transports,
};

const handoff_plugin *handoff_plugin_entry(void) { return &plugin; }
