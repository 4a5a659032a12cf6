//! Caps on what the receipt reads from untrusted input that more than one
//! part shares, each named once here: every agent's record reader, the
//! instruction chains, the folder walks. Each is a row (or part of one) of
//! the README's "Limits on hostile input" table; the test below holds the
//! table to these values. A cap one part alone has stays beside it.

/// A session record, after decompression: a review's is a few MiB, and a
/// 134 KB zstd file can expand to 4 GiB.
pub(crate) const RECORD_BYTES: u64 = 256 << 20;
/// One line of a record: a longer one is not parsed (a parsed line takes
/// several times its size).
pub(crate) const RECORD_LINE_BYTES: usize = 32 << 20;
/// The lines read from one record: far more than a review writes, and a
/// bound on the work a hostile one can ask for.
pub(crate) const RECORD_LINES: usize = 200_000;
/// The records read to find this run's among several.
pub(crate) const RECORD_CANDIDATES: usize = 64;
/// The files an instruction chain's `@` imports follow, and how deep.
pub(crate) const IMPORTS: usize = 1024;
pub(crate) const IMPORT_DEPTH: usize = 5;
/// The entries a walk of a folder the pull request or an upload fills
/// (codex-home's sessions, `audit`'s folder, the workflows) looks at.
pub(crate) const FOLDER_ENTRIES: usize = 100_000;
/// One object read from git (a file of the base or of `HEAD`, a folder's
/// tree): a blob of zeros packs small and unpacks to gigabytes. Git's
/// other answers (a listing, a diff) are held to the same.
pub(crate) const GIT_OBJECT_BYTES: u64 = 64 << 20;
/// The trees git's object reader keeps, to walk the next path through the
/// same folders without asking again: past it, a tree is read again when
/// it is needed, never kept.
pub(crate) const GIT_TREES_KEPT_BYTES: u64 = 64 << 20;
/// The first line of each answer of git's object reader (`<id> <kind>
/// <size>`, or the name asked and `missing`): the names asked are ours.
pub(crate) const GIT_ANSWER_LINE_BYTES: u64 = 4 << 10;

#[cfg(test)]
mod tests {
    use super::*;

    /// `1,024`, as the README writes a count.
    fn count(n: usize) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    }

    #[test]
    fn the_readme_states_each_cap() {
        let readme = include_str!("../README.md");
        let table = readme
            .split("### Limits on hostile input")
            .nth(1)
            .and_then(|t| t.split("\n### ").next())
            .expect("the README's limits table");
        for said in [
            format!("{} MiB after decompression", RECORD_BYTES >> 20),
            format!("{} MiB a line", RECORD_LINE_BYTES >> 20),
            format!("{} lines", count(RECORD_LINES)),
            format!("{} read to find this run's", RECORD_CANDIDATES),
            format!("{} imports followed", count(IMPORTS)),
            format!("{} files imported", count(IMPORTS)),
            format!("{} entries", count(FOLDER_ENTRIES)),
            format!("{} MiB of output", GIT_OBJECT_BYTES >> 20),
            format!("{} MiB (git is stopped past it)", GIT_OBJECT_BYTES >> 20),
            format!("{} MiB of trees kept", GIT_TREES_KEPT_BYTES >> 20),
        ] {
            assert!(
                table.contains(&said),
                "the README's limits table does not say `{said}`"
            );
        }
        assert_eq!(count(1024), "1,024");
        assert_eq!(count(100_000), "100,000");
    }
}
