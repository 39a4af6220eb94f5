//! The consumer's offset commits that must land: the stream's start, before it, and its end.
//!
//! During the stream commits are asynchronous (a synchronous one would wait for every answer
//! before it). The client reports nothing of an asynchronous commit to a consumer without a
//! commit callback, which the rdkafka crate does not set: one that fails is only logged, and
//! only a later commit of larger offsets makes up for it. That holds except at the ends: before
//! the stream, the first commit on a fresh broker finds no group coordinator yet (the broker
//! makes its offsets topic then, and answers "loading" meanwhile), and after the stream no
//! commit follows the last. So the channel's warm-up commits the stream's start synchronously,
//! settling the coordinator outside the timed region, and the end of the stream asks the
//! coordinator for the group's offsets (its answer comes after every commit sent before the
//! question) and, where one is short of what was handed over, commits the final offsets again,
//! synchronously. Both are bounded by a deadline; past it the consumer fails, naming the
//! broker's last answer.

use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::{Offset, TopicPartitionList};
use std::time::{Duration, Instant};

/// The pause between two tries of a synchronous commit the broker refused (its coordinator
/// still loading, say).
const RETRY_PAUSE: Duration = Duration::from_millis(50);
/// The longest one question for the group's offsets may take.
const ASK_WAIT: Duration = Duration::from_secs(5);

/// Commits `offsets` synchronously, trying again while the broker refuses, until `deadline`;
/// the last refusal once past it.
pub(super) fn commit_until(
    consumer: &BaseConsumer,
    offsets: &TopicPartitionList,
    deadline: Instant,
) -> Result<(), KafkaError> {
    loop {
        match consumer.commit(offsets, CommitMode::Sync) {
            Ok(()) => return Ok(()),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(RETRY_PAUSE),
        }
    }
}

/// Makes sure the group's committed offsets reach `end` (each partition's offset after the last
/// record handed over; `None`: nothing handed over there): asks the coordinator, and commits
/// `end` again where the group is short, until the answer shows them all or `deadline` passes.
/// How many commits it made again.
pub(super) fn confirm(
    consumer: &BaseConsumer,
    topic: &str,
    end: &[Option<i64>],
    deadline: Instant,
) -> Result<u32, String> {
    let mut wanted = TopicPartitionList::with_capacity(end.len());
    for (p, next) in end.iter().enumerate() {
        if let Some(next) = *next {
            wanted
                .add_partition_offset(topic, p as i32, Offset::Offset(next))
                .map_err(|e| format!("offsets for {topic}: {e}"))?;
        }
    }
    if wanted.count() == 0 {
        return Ok(0);
    }
    let mut again = 0;
    loop {
        let wait = ASK_WAIT.min(deadline.saturating_duration_since(Instant::now()));
        let last = match consumer.committed_offsets(wanted.clone(), wait) {
            Ok(committed) => {
                let short = short_of(&committed, &wanted);
                if short.is_empty() {
                    return Ok(again);
                }
                format!("the group's offsets are short in partitions {short:?}")
            }
            Err(e) => format!("asking for the group's offsets: {e}"),
        };
        if Instant::now() >= deadline {
            return Err(format!(
                "{last} ({again} commits of the final offsets made)"
            ));
        }
        if let Err(e) = commit_until(consumer, &wanted, deadline) {
            return Err(format!("{last}; committing the final offsets: {e}"));
        }
        again += 1;
    }
}

/// The partitions of `wanted` whose committed offset is below the wanted one.
fn short_of(committed: &TopicPartitionList, wanted: &TopicPartitionList) -> Vec<i32> {
    wanted
        .elements()
        .iter()
        .filter(|w| {
            let have = committed
                .find_partition(w.topic(), w.partition())
                .map(|c| c.offset());
            match (have, w.offset()) {
                (Some(Offset::Offset(have)), Offset::Offset(want)) => have < want,
                _ => true,
            }
        })
        .map(|w| w.partition())
        .collect()
}
