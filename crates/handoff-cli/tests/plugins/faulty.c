/*
 * A plugin with planted faults, for handoff's own tests: a plain mutex-protected ring, and
 * transports that each break it in one way at message 1000 of every queue:
 *
 *   c-fault-none   no fault (the control)
 *   c-fault-drop   says it pushed message 1000, and drops it
 *   c-fault-dup    delivers message 1000 twice
 *   c-fault-swap   delivers messages 1000 and 1001 in the wrong order
 *   c-fault-segv   the consumer dereferences NULL at message 1000
 *   c-fault-hang   the consumer never returns from its 1000th pop
 *
 * Compiled with one of these, the library is broken as a whole instead:
 *   -DWRONG_ABI    reports ABI version 99
 *   -DNONSENSE     declares an unknown ordering, 5 producers and no destroy
 *   -DNO_ENTRY     exports no handoff_plugin_entry
 *   -DLOAD_CRASH   crashes while it is being loaded
 *   -DCLASH        declares a transport named `rtrb`, which handoff has already
 */
#include "handoff.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum fault { NONE, DROP, DUP, SWAP, SEGV, HANG };

/* A NULL the compiler cannot see through, so the store below really happens. */
static int *volatile nowhere = NULL;

#define AT 1000

typedef struct queue {
    pthread_mutex_t lock;
    unsigned char *slots;
    size_t size, capacity, head, len;
    unsigned long pushes, pops;
    unsigned char *held; /* SWAP: the message held back */
    enum fault fault;
} queue;

static void *create(enum fault fault, uint64_t capacity, uint32_t size, char *error, size_t len) {
    if (capacity == 0) {
        strncpy(error, "capacity 0 is not supported", len);
        return NULL;
    }
    queue *q = calloc(1, sizeof *q);
    q->slots = malloc(capacity * size);
    q->held = malloc(size);
    q->size = size;
    q->capacity = capacity;
    q->fault = fault;
    pthread_mutex_init(&q->lock, NULL);
    return q;
}

#define CREATE(name, fault)                                                                    \
    static void *name(uint64_t c, uint32_t s, uint32_t p, uint32_t n, char *e, size_t l) {     \
        (void)p;                                                                               \
        (void)n;                                                                               \
        return create(fault, c, s, e, l);                                                      \
    }
CREATE(create_none, NONE)
CREATE(create_drop, DROP)
CREATE(create_dup, DUP)
CREATE(create_swap, SWAP)
CREATE(create_segv, SEGV)
CREATE(create_hang, HANG)

static void put(queue *q, const void *m) {
    memcpy(q->slots + ((q->head + q->len) % q->capacity) * q->size, m, q->size);
    q->len++;
}

static int try_push(void *h, const void *m) {
    queue *q = h;
    pthread_mutex_lock(&q->lock);
    int ok = q->len + 1 < q->capacity; /* one slot kept free for a swapped message */
    if (ok) {
        unsigned long n = q->pushes++;
        if (q->fault == DROP && n == AT) {
            /* dropped */
        } else if (q->fault == SWAP && n == AT) {
            memcpy(q->held, m, q->size);
        } else {
            put(q, m);
            if (q->fault == SWAP && n == AT + 1)
                put(q, q->held);
        }
    }
    pthread_mutex_unlock(&q->lock);
    return ok;
}

static int try_pop(void *h, void *out) {
    queue *q = h;
    pthread_mutex_lock(&q->lock);
    int ok = q->len > 0;
    if (ok) {
        unsigned long n = q->pops++;
        if (q->fault == SEGV && n == AT)
            *nowhere = 1;
        if (q->fault == HANG && n == AT) {
            pthread_mutex_unlock(&q->lock);
            for (;;)
                pause();
        }
        memcpy(out, q->slots + q->head * q->size, q->size);
        if (!(q->fault == DUP && n == AT)) {
            q->head = (q->head + 1) % q->capacity;
            q->len--;
        }
    }
    pthread_mutex_unlock(&q->lock);
    return ok;
}

static void destroy(void *h) {
    queue *q = h;
    pthread_mutex_destroy(&q->lock);
    free(q->slots);
    free(q->held);
    free(q);
}

#define TRANSPORT(name_, create_)                                                              \
    {                                                                                          \
        .name = name_, .description = "a mutex-protected ring with a planted fault",           \
        .language = "C", .producers = HANDOFF_ONE, .consumers = HANDOFF_ONE,                    \
        .ordering = HANDOFF_FIFO, .flags = 0, .min_capacity = 1, .create = create_,            \
        .try_push = try_push, .try_pop = try_pop, .destroy = destroy,                          \
    }

static const handoff_transport transports[] = {
#ifdef CLASH
    TRANSPORT("rtrb", create_none),
#else
    TRANSPORT("c-fault-none", create_none),
#endif
    TRANSPORT("c-fault-drop", create_drop),
    TRANSPORT("c-fault-dup", create_dup),
    TRANSPORT("c-fault-swap", create_swap),
    TRANSPORT("c-fault-segv", create_segv),
    TRANSPORT("c-fault-hang", create_hang),
#ifdef NONSENSE
    {.name = "c-fault-nonsense", .description = "nonsense", .language = "C", .producers = 5,
     .consumers = HANDOFF_ONE, .ordering = 7, .create = create_none, .try_push = try_push,
     .try_pop = try_pop, .destroy = NULL},
#endif
};

static const handoff_plugin plugin = {
#ifdef WRONG_ABI
    .abi_version = 99,
#else
    .abi_version = HANDOFF_ABI_VERSION,
#endif
    .transport_size = sizeof(handoff_transport),
    .name = "faulty",
    .count = sizeof transports / sizeof transports[0],
    .transports = transports,
};

#ifdef LOAD_CRASH
__attribute__((constructor)) static void crash_on_load(void) { *nowhere = 1; }
#endif

#ifdef NO_ENTRY
const handoff_plugin *not_the_entry_point(void) { return &plugin; }
#else
const handoff_plugin *handoff_plugin_entry(void) { return &plugin; }
#endif
