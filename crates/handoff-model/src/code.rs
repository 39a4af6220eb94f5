//! The identity of the machine code a transport's trials run, and whether two builds share it.
//!
//! A build of handoff digests, for each transport it runs, the code reachable from that
//! transport's trial entry points in its own executable (see the `handoff-code` crate): every
//! function's instructions with their placement taken out (calls and references named by their
//! target, not its address). Two builds whose digests for a transport are equal run the same
//! instructions for it, however differently the linker placed them; a difference between their
//! figures is then the machine's drift or the code's placement, not a change of the code.

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
}

/// Whether a transport's code is the same in two builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CodeMatch {
    /// The same instructions in both builds (placement aside).
    Same,
    /// Some instruction it runs differs.
    Changed,
}

impl CodeMatch {
    /// The match of two sides' identities; `None` when either side's is unknown (a report from
    /// a build that did not digest its code, or an executable that could not be read).
    pub fn of(before: Option<&CodeIdentity>, after: Option<&CodeIdentity>) -> Option<CodeMatch> {
        Some(if before?.digest == after?.digest {
            CodeMatch::Same
        } else {
            CodeMatch::Changed
        })
    }

    /// How a view names it.
    pub fn mark(self) -> &'static str {
        match self {
            CodeMatch::Same => "same code",
            CodeMatch::Changed => "code changed",
        }
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
}
