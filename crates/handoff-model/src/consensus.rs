//! The consensus verdict as a report carries it.

use serde::{Deserialize, Serialize};

/// Whether every transport delivered the stream of its group.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Consensus {
    /// One group per stream and message count, in the order of their first result.
    pub groups: Vec<ConsensusGroup>,
    /// Results that deliver no stream consensus can compare (ramps, `latest` pipelines).
    #[serde(default)]
    pub excluded: Vec<Excluded>,
}

/// The results of one stream at one message count, and their digests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConsensusGroup {
    /// The stream: workload · payload · producers → consumers (· rate).
    pub stream: String,
    /// Messages per sample every member ran.
    pub messages: u64,
    /// The digest more members delivered than any other; `None` when no digest has more
    /// members than every other (two members that disagree: which one is wrong is unknown).
    pub digest: Option<String>,
    /// Every passing result of the group, with its digest.
    pub members: Vec<Member>,
    /// Results of the group that did not pass, so have no whole stream to compare (their
    /// verdict says what went wrong): indices into the report's results.
    #[serde(default)]
    pub not_compared: Vec<usize>,
}

/// One result compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// Index into the report's results.
    pub result: usize,
    /// The result's transport and the settings that tell it from others of its group
    /// (`rtrb cap=1024 batch=256`).
    pub label: String,
    /// The digest of the stream it delivered (hex).
    pub digest: String,
}

/// A result left out of consensus, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Excluded {
    /// Index into the report's results.
    pub result: usize,
    /// Why its stream cannot be compared.
    pub reason: String,
}

impl ConsensusGroup {
    /// Whether every member delivered the majority's digest (a group with no member, none of
    /// whose trials passed, has nobody to disagree: its verdicts already fail the run).
    pub fn agreed(&self) -> bool {
        self.members.is_empty()
            || self
                .digest
                .as_ref()
                .is_some_and(|d| self.members.iter().all(|m| &m.digest == d))
    }

    /// The members that delivered another stream than the majority (every member, when there
    /// is no majority).
    pub fn dissenters(&self) -> impl Iterator<Item = &Member> {
        self.members
            .iter()
            .filter(move |m| self.digest.as_ref() != Some(&m.digest))
    }

    /// The members that delivered the majority's stream.
    pub fn majority(&self) -> impl Iterator<Item = &Member> {
        self.members
            .iter()
            .filter(move |m| self.digest.as_ref() == Some(&m.digest))
    }
}

impl Consensus {
    /// Whether some transport delivered another stream than its group's.
    pub fn failed(&self) -> bool {
        self.groups.iter().any(|g| !g.agreed())
    }
}
