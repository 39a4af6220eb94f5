//! The identity of the machine code a transport's trials run, and whether two builds share it.
//!
//! A build of handoff digests, for each transport it runs, the code reachable from that
//! transport's trial entry points in its own executable (see the `handoff-code` crate): every
//! function's instructions with their placement taken out (calls and references named by their
//! target, not its address). Two builds whose digests for a transport are equal run the same
//! instructions for it, however differently the linker placed them; a difference between their
//! figures is then the machine's drift or the code's placement, not a change of the code.
//!
//! Each identity also carries the digest of the sources the transport's crate is built from
//! (its own and every dependency's, with the workspace's build settings). Code that differs
//! while the sources do not was moved by the compiler (its version, or how it partitioned and
//! inlined the build), not by an edit, and a comparison says so.

use serde::{Deserialize, Serialize};

/// The digest of the code one transport's trials run in one build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeIdentity {
    /// The digest (16 hex digits) over every function reached, each by its placement-free
    /// instructions.
    pub digest: String,
    /// Functions reached from the trial's entry points.
    pub functions: u32,
    /// Their bytes of machine code.
    pub bytes: u64,
    /// The digest (16 hex digits) of the sources the transport's crate is built from, when the
    /// build recorded them (a plugin's, or an older build's, are unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// Whether a transport's code is the same in two builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CodeMatch {
    /// The same instructions in both builds (placement aside).
    Same,
    /// Some instruction it runs differs, and so do its sources (or they are unknown).
    Changed,
    /// Some instruction it runs differs though its sources are the same in both builds: the
    /// compiler moved it, not an edit.
    ChangedSourceSame,
}

impl CodeMatch {
    /// The match of two sides' identities; `None` when either side's is unknown (a report from
    /// a build that did not digest its code, or an executable that could not be read).
    pub fn of(before: Option<&CodeIdentity>, after: Option<&CodeIdentity>) -> Option<CodeMatch> {
        let (before, after) = (before?, after?);
        Some(if before.digest == after.digest {
            CodeMatch::Same
        } else if before.source.is_some() && before.source == after.source {
            CodeMatch::ChangedSourceSame
        } else {
            CodeMatch::Changed
        })
    }

    /// How a view names it.
    pub fn mark(self) -> &'static str {
        match self {
            CodeMatch::Same => "same code",
            CodeMatch::Changed => "code changed",
            CodeMatch::ChangedSourceSame => "code changed, source same",
        }
    }

    /// Whether the instructions differ (whatever moved them).
    pub fn changed(self) -> bool {
        self != CodeMatch::Same
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(d: &str) -> CodeIdentity {
        CodeIdentity {
            digest: d.into(),
            functions: 3,
            bytes: 100,
            source: None,
        }
    }

    fn built_from(d: &str, source: &str) -> CodeIdentity {
        CodeIdentity {
            source: Some(source.into()),
            ..id(d)
        }
    }

    #[test]
    fn equal_digests_are_the_same_code_and_an_unknown_side_is_unknown() {
        assert_eq!(
            CodeMatch::of(Some(&id("a")), Some(&id("a"))),
            Some(CodeMatch::Same)
        );
        assert_eq!(
            CodeMatch::of(Some(&id("a")), Some(&id("b"))),
            Some(CodeMatch::Changed)
        );
        assert_eq!(CodeMatch::of(None, Some(&id("b"))), None);
        assert_eq!(CodeMatch::of(Some(&id("a")), None), None);
    }

    #[test]
    fn code_that_differs_from_the_same_sources_was_moved_by_the_compiler() {
        let (a, b) = (built_from("a", "s1"), built_from("b", "s1"));
        assert_eq!(
            CodeMatch::of(Some(&a), Some(&b)),
            Some(CodeMatch::ChangedSourceSame)
        );
        assert!(CodeMatch::ChangedSourceSame.changed());
        // An edited source is a change of the code, whatever else moved.
        let edited = built_from("b", "s2");
        assert_eq!(
            CodeMatch::of(Some(&a), Some(&edited)),
            Some(CodeMatch::Changed)
        );
        // Unknown sources on either side say nothing of the compiler.
        assert_eq!(
            CodeMatch::of(Some(&id("a")), Some(&id("b"))),
            Some(CodeMatch::Changed)
        );
        // The same code is the same, whatever its sources.
        assert_eq!(
            CodeMatch::of(Some(&a), Some(&built_from("a", "s2"))),
            Some(CodeMatch::Same)
        );
        assert_eq!(CodeMatch::of(Some(&id("a")), None), None);
    }
}
