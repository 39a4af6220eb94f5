// Included by this crate's lib.rs and by the `handoff` crate's suite-file tests, which cannot
// depend on this crate: one list for both.

/// The options each broker transport takes. A transport not built declares them too (taking
/// any value), so that a suite written for the brokers parses on any build and its broker
/// trials are then unavailable, not errors; a test checks the built ones declare the same.
pub const OPTIONS: [(&str, &[&str]); 4] = [
    (
        "kafka",
        &[
            "acks",
            "linger-ms",
            "batch-size",
            "fetch-wait-max-ms",
            "partitions",
            "commit",
        ],
    ),
    ("redis-streams", &["ack", "fetch"]),
    ("nats", &["pending"]),
    ("nats-jetstream", &["window", "fetch", "storage"]),
];
