//! The working tree opencode ran on: at each step it writes the tree of the
//! working tree (`git write-tree` in a repository of its own under the data
//! folder, `snapshot/<project>/<hash>/`) into the record. Each such tree must
//! be the tree of the commit the receipt names: then the instruction files
//! the chain rebuilds from the checkout are the ones opencode read. A tree
//! that differs is compared with the commit's by git, reading the snapshot's
//! objects from the upload, and each file that differs is named; opencode's
//! own edit of `opencode.json` (it adds a `"$schema"` line) is said, not
//! failed.

use std::path::{Path, PathBuf};

use super::record::{self, Record};
use crate::agent::check::short;
use crate::agent::{AgentCheck, Expected, Fact};
use crate::escape::one_line;
use crate::workspace::Workspace;

/// The line opencode adds to a configuration that has none.
const SCHEMA: &str = "https://opencode.ai/config.json";

/// Object folders of the snapshot repositories under the agent home
/// (`.local/share/opencode/snapshot/<project>/<hash>/objects`).
pub(crate) fn object_dirs(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let base = home.join(record::DATA_DIR).join("snapshot");
    let Ok(projects) = std::fs::read_dir(&base) else {
        return out;
    };
    for p in projects
        .flatten()
        .take(crate::limits::SNAPSHOT_REPOSITORIES)
    {
        let Ok(repos) = std::fs::read_dir(p.path()) else {
            continue;
        };
        for r in repos.flatten().take(crate::limits::SNAPSHOT_REPOSITORIES) {
            let objects = r.path().join("objects");
            if std::fs::symlink_metadata(&objects).is_ok_and(|m| m.is_dir())
                && out.len() < crate::limits::SNAPSHOT_REPOSITORIES
            {
                out.push(objects);
            }
        }
    }
    out.sort();
    out
}

/// Whether `path` steers opencode: an instruction file by name, a file of
/// its chain, or a file its base comparison covers (configuration,
/// plugins, tools, agents, skills).
fn steers(path: &str, chain: &[String]) -> bool {
    (super::ABOUT.instructions)(path)
        || chain.iter().any(|c| c == path)
        || super::ABOUT
            .base_globs
            .iter()
            .any(|(_, g)| crate::base::matches(&format!(":(glob){g}"), path))
}

/// Each step's snapshot held to the commit's tree.
pub(crate) fn check(
    c: &mut AgentCheck,
    r: &Record,
    home: &Path,
    ws: &Workspace,
    chain: &[String],
    x: &Expected,
) {
    let snaps = record::snapshots(r);
    if snaps.is_empty() {
        c.unverified.push((
            "the working tree the agent ran on".into(),
            "the record holds no step snapshot (`step-start` `snapshot`): nothing shows which instruction files opencode found".into(),
        ));
        return;
    }
    let Some(tree) = crate::git::tree_of(ws.root(), x.git_sha) else {
        c.unverified.push((
            "the working tree the agent ran on".into(),
            format!("git cannot name the tree of commit {}: the record's snapshots were not compared with it", x.git_sha),
        ));
        return;
    };
    checkout_is_commit(c, ws, chain, x);
    let objects = object_dirs(home);
    let n = snaps.len();
    let mut same = 0;
    for (i, snap) in snaps.iter().enumerate() {
        if *snap == tree {
            same += 1;
            continue;
        }
        let which = format!(
            "the working tree opencode snapshotted{} (tree {})",
            if n > 1 {
                format!(" at step {} of {n}", i + 1)
            } else {
                String::new()
            },
            short(&one_line(snap))
        );
        match crate::git::trees_differ(ws.root(), &tree, snap, &objects, crate::limits::SNAPSHOT_NAMED) {
            Ok((changes, more)) => differs(c, ws, &objects, &which, &changes, more, chain, x),
            Err(why) => c.unverified.push((
                "the working tree the agent ran on".into(),
                format!(
                    "{which} is not the tree of commit {} ({}), and git could not compare them ({}): upload opencode's data folder with its `snapshot/` objects (the collect action does), so the files that differ can be named",
                    x.git_sha,
                    short(&tree),
                    one_line(&why)
                ),
            )),
        }
    }
    c.facts.push(Fact::text(
        "Working tree",
        format!(
            "{same} of {n} step snapshot{} equal to the tree of commit {} ({})",
            if n == 1 { "" } else { "s" },
            short(x.git_sha),
            short(&tree)
        ),
    ));
}

/// The chain's files in the checkout are the commit's: the snapshots prove
/// the commit's tree, so a file changed or added after it is not what
/// opencode read.
fn checkout_is_commit(c: &mut AgentCheck, ws: &Workspace, chain: &[String], x: &Expected) {
    let specs: Vec<String> = chain
        .iter()
        .filter(|p| !p.starts_with(super::chain::HOME_PREFIX))
        .map(|p| format!(":(literal){p}"))
        .collect();
    if specs.is_empty() {
        return;
    }
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let changed = crate::git::differs_from(ws.root(), x.git_sha, &specs);
    let added = crate::git::untracked(ws.root(), &specs);
    let (Some(changed), Some(added)) = (changed, added) else {
        c.unverified.push((
            "the instruction files of the checkout".into(),
            format!(
                "git could not compare the chain's files with commit {}",
                short(x.git_sha)
            ),
        ));
        return;
    };
    for path in changed.iter().map(|d| &d.path).chain(&added) {
        c.problems.push(format!(
            "`{}` as the checkout has it is not commit {}'s, the tree opencode's snapshots name: the receipt hashed a file the agent did not read",
            one_line(&crate::markdown::clip(path, 200)),
            short(x.git_sha)
        ));
    }
}

/// What a differing snapshot holds: a file that steers opencode is a
/// problem, opencode's own `$schema` line a note, any other file a note.
#[allow(clippy::too_many_arguments)]
fn differs(
    c: &mut AgentCheck,
    ws: &Workspace,
    objects: &[PathBuf],
    which: &str,
    changes: &[crate::git::TreeChange],
    more: bool,
    chain: &[String],
    x: &Expected,
) {
    let mut others = Vec::new();
    for ch in changes {
        let path = one_line(&crate::markdown::clip(&ch.path, 200)).into_owned();
        let name = ch.path.rsplit('/').next().unwrap_or(&ch.path);
        if super::chain::CONFIG_NAMES.contains(&name)
            && ch.status == 'M'
            && only_schema_added(ws, objects, &ch.old_blob, &ch.new_blob)
        {
            c.notes.push(format!(
                "{which} has `{path}` with the `\"$schema\"` line opencode adds to a configuration that has none: its own edit, the rest of the file as the commit has it"
            ));
            continue;
        }
        if steers(&ch.path, chain) {
            let how = match ch.status {
                'A' => "that commit {} does not have",
                'D' => "without the file commit {} has",
                _ => "other than commit {} has it",
            };
            c.problems.push(format!(
                "{which} has `{path}` {}: opencode read its instructions and configuration from a working tree that is not the checkout's, so the chain the receipt hashed is not what it read",
                how.replace("{}", &short(x.git_sha))
            ));
        } else {
            others.push(format!("`{path}`"));
        }
    }
    if !others.is_empty() || more {
        let shown: Vec<String> = others.iter().take(10).cloned().collect();
        let rest = others.len().saturating_sub(shown.len());
        c.notes.push(format!(
            "{which} differs from commit {} in files that steer no instruction: {}{}{}",
            short(x.git_sha),
            shown.join(", "),
            if rest > 0 {
                format!(" and {rest} more")
            } else {
                String::new()
            },
            if more {
                format!(
                    " (more than {} files differ)",
                    crate::limits::SNAPSHOT_NAMED
                )
            } else {
                String::new()
            }
        ));
    }
}

/// The snapshot's configuration is the commit's with a `"$schema"` key
/// added, and nothing else changed.
fn only_schema_added(ws: &Workspace, objects: &[PathBuf], old: &str, new: &str) -> bool {
    let read = |id: &str| crate::git::blob_with(ws.root(), id, objects).ok().flatten();
    let (Some(old), Some(new)) = (read(old), read(new)) else {
        return false;
    };
    let (Some(old), Some(mut new)) = (
        super::chain::parse_jsonc(&old),
        super::chain::parse_jsonc(&new),
    ) else {
        return false;
    };
    if old.get("$schema").is_some() || new["$schema"] != SCHEMA {
        return false;
    }
    if let Some(map) = new.as_object_mut() {
        map.remove("$schema");
    }
    old == new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_steers_opencode_is_named() {
        let chain = vec!["docs/rules/a.md".to_string()];
        for path in [
            "AGENTS.md",
            "sub/CLAUDE.md",
            "docs/rules/a.md",
            "opencode.json",
            ".opencode/plugins/p.ts",
            ".claude/skills/a/SKILL.md",
        ] {
            assert!(steers(path, &chain), "{path}");
        }
        assert!(!steers("src/main.rs", &chain));
    }
}
