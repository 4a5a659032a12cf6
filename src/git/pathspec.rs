//! git's pathspecs, as its tree diff matches a file's path against them, for
//! the two kinds this tool writes (`:(literal)` and `:(glob)`): one `git
//! diff --raw` of the whole range answers every question about it (which
//! instruction files changed, which links), and each path it lists is
//! matched here rather than by a second diff limited to the pathspecs.
//!
//! A literal, or a glob without a wildcard, matches the path itself and
//! everything under it as a folder. A glob with a wildcard is git's
//! `wildmatch` with `WM_PATHNAME`: `*` and `?` stop at `/`, `**/` is any
//! number of folders, a trailing `/**` everything inside, `\` quotes the
//! next character, `[...]` a class (without the `[:name:]` classes, which
//! this tool never writes: such a pattern matches nothing here).

/// Whether `path` (relative, `/` between names, as git lists it) matches
/// `pathspec`; a pathspec of another kind matches nothing.
pub(crate) fn matches(pathspec: &str, path: &str) -> bool {
    if let Some(literal) = pathspec.strip_prefix(":(literal)") {
        return normalize(literal).is_some_and(|l| under(&l, path));
    }
    let Some(glob) = pathspec.strip_prefix(":(glob)") else {
        return false;
    };
    if !glob.bytes().any(|b| b"*?[\\".contains(&b)) {
        return normalize(glob).is_some_and(|l| under(&l, path));
    }
    wildmatch(glob.as_bytes(), path.as_bytes()) == Match::Yes
}

/// `path` is `spec`, or inside it; the empty spec (the whole tree) holds all.
fn under(spec: &str, path: &str) -> bool {
    spec.is_empty()
        || path == spec
        || path
            .strip_prefix(spec)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// `./a/../b/` as git reads a pathspec's path: `b`; `None` when it climbs
/// out (git refuses such a pathspec).
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Match {
    Yes,
    No,
    /// No later start of `*` can match: give up the whole pattern.
    AbortAll,
    /// No later start can match before the enclosing `**`.
    AbortToStarStar,
}

/// git's `dowild` (wildmatch.c) with `WM_PATHNAME`, on bytes.
fn wildmatch(pattern: &[u8], text: &[u8]) -> Match {
    let (mut p, mut t) = (0, 0);
    while p < pattern.len() {
        let p_ch = pattern[p];
        let t_ch = text.get(t).copied();
        if t_ch.is_none() && p_ch != b'*' {
            return Match::AbortAll;
        }
        let t_ch = t_ch.unwrap_or(0);
        match p_ch {
            b'\\' => {
                p += 1;
                if pattern.get(p) != Some(&t_ch) {
                    return Match::No;
                }
            }
            b'?' if t_ch == b'/' => return Match::No,
            b'?' => {}
            b'*' => return star(pattern, p, text, t),
            b'[' => match class(pattern, p, t_ch) {
                Some((true, end)) => p = end,
                _ => return Match::No,
            },
            _ if p_ch != t_ch => return Match::No,
            _ => {}
        }
        p += 1;
        t += 1;
    }
    if t < text.len() {
        Match::No
    } else {
        Match::Yes
    }
}

/// A `*` or `**` at `pattern[p]`, against `text[t..]`.
fn star(pattern: &[u8], mut p: usize, text: &[u8], mut t: usize) -> Match {
    let first = p;
    p += 1;
    let match_slash = if pattern.get(p) == Some(&b'*') {
        while pattern.get(p) == Some(&b'*') {
            p += 1;
        }
        let after_slash = first == 0 || pattern[first - 1] == b'/';
        let before_slash = match pattern.get(p) {
            None | Some(b'/') => true,
            Some(b'\\') => pattern.get(p + 1) == Some(&b'/'),
            _ => false,
        };
        if after_slash && before_slash {
            // `**/` may stand for no folder at all.
            if pattern.get(p) == Some(&b'/')
                && wildmatch(&pattern[p + 1..], &text[t..]) == Match::Yes
            {
                return Match::Yes;
            }
            true
        } else {
            false
        }
    } else {
        false
    };
    if p == pattern.len() {
        // A trailing `**` holds everything, a trailing `*` one name.
        return if match_slash || !text[t..].contains(&b'/') {
            Match::Yes
        } else {
            Match::No
        };
    }
    if !match_slash && pattern[p] == b'/' {
        // `*/`: the rest of this name, then the slash.
        return match text[t..].iter().position(|b| *b == b'/') {
            Some(slash) => wildmatch(&pattern[p..], &text[t + slash..]),
            None => Match::No,
        };
    }
    loop {
        if t >= text.len() {
            return Match::AbortAll;
        }
        // A literal after the star: skip to where it next occurs.
        if !b"*?[\\".contains(&pattern[p]) {
            while t < text.len() && (match_slash || text[t] != b'/') && text[t] != pattern[p] {
                t += 1;
            }
            if text.get(t) != Some(&pattern[p]) {
                return if match_slash {
                    Match::AbortAll
                } else {
                    Match::AbortToStarStar
                };
            }
        }
        match wildmatch(&pattern[p..], &text[t..]) {
            Match::No => {
                if !match_slash && text[t] == b'/' {
                    return Match::AbortToStarStar;
                }
            }
            Match::AbortToStarStar if match_slash => {}
            other => return other,
        }
        t += 1;
    }
}

/// A class `[...]` at `pattern[p]` against `c`: whether it holds `c`, and
/// where the class ends (its `]`); `None` for a class left open or one
/// with a `[:name:]` in it.
fn class(pattern: &[u8], p: usize, c: u8) -> Option<(bool, usize)> {
    if c == b'/' {
        return Some((false, p));
    }
    let mut i = p + 1;
    let negated = matches!(pattern.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut held = false;
    let mut first = true;
    loop {
        let mut ch = *pattern.get(i)?;
        if ch == b']' && !first {
            break;
        }
        first = false;
        if ch == b'[' && pattern.get(i + 1) == Some(&b':') {
            return None;
        }
        if ch == b'\\' {
            i += 1;
            ch = *pattern.get(i)?;
        }
        if pattern.get(i + 1) == Some(&b'-') && pattern.get(i + 2).is_some_and(|e| *e != b']') {
            let mut end = pattern[i + 2];
            i += 2;
            if end == b'\\' {
                i += 1;
                end = *pattern.get(i)?;
            }
            held |= ch <= c && c <= end;
        } else {
            held |= ch == c;
        }
        i += 1;
    }
    Some((held != negated, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pathspec of `specs` against every path of `paths`, as `git diff
    /// --name-only` matches them in a real repository, and as [`matches`]
    /// does: the same.
    #[test]
    fn every_kind_of_pathspec_this_tool_writes_matches_as_git_matches_it() {
        let specs = [
            ":(literal)AGENTS.md",
            ":(literal).github/codex/prompts/review.md",
            ":(literal)./docs/../prompt.md",
            ":(literal)sub",
            ":(glob)**/AGENTS.md",
            ":(glob)**/.claude/**",
            ":(glob)**/.github/instructions/**",
            ":(glob).github/hooks/**",
            ":(glob).mcp.json",
            ":(glob)**/.codex/hooks.json",
            ":(glob)mcp/ser\\[v\\]er/**",
            ":(glob)**/*.instructions.md",
            ":(glob)src/*/x.md",
            ":(glob)a?c/[b-d]e/**",
        ];
        let paths = [
            "AGENTS.md",
            "src/AGENTS.md",
            "src/deep/AGENTS.md",
            "xAGENTS.md",
            "AGENTS.md.bak",
            "prompt.md",
            ".github/codex/prompts/review.md",
            "sub/file",
            "subway",
            ".claude/rules/a.md",
            "x/.claude/settings.json",
            "x.claude/a",
            ".github/instructions/a.instructions.md",
            "pkg/.github/instructions/deep/b.md",
            ".github/hooks/guard.json",
            ".github/hooksy",
            "x/.github/hooks/guard.json",
            ".mcp.json",
            "a/.mcp.json",
            ".codex/hooks.json",
            "svc/.codex/hooks.json",
            "mcp/ser[v]er/index.js",
            "mcp/server/index.js",
            "docs/x.instructions.md",
            "src/a/x.md",
            "src/a/b/x.md",
            "abc/ce/f",
            "axc/de/g/h",
            "abc/ae/f",
            "new\nline/AGENTS.md",
        ];
        let Some(git) = git_listing(&specs, &paths) else {
            return;
        };
        for spec in specs {
            let ours: Vec<&str> = paths.iter().copied().filter(|p| matches(spec, p)).collect();
            let mut ours: Vec<String> = ours.iter().map(|p| p.to_string()).collect();
            ours.sort();
            assert_eq!(ours, git[spec], "{spec}");
        }
    }

    /// What `git diff --name-only -z` lists for each spec, between an empty
    /// commit and one with every path; `None` (said) without git.
    fn git_listing(
        specs: &[&str],
        paths: &[&str],
    ) -> Option<std::collections::HashMap<String, Vec<String>>> {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
                .args(args)
                .current_dir(dir)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
        };
        if git(&["init", "-q"]).is_err() {
            eprintln!("SKIPPED: git is not installed");
            return None;
        }
        git(&["commit", "-q", "--allow-empty", "-m", "empty"]).unwrap();
        for p in paths {
            let file = dir.join(p);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, p).unwrap();
        }
        git(&["add", "-A"]).unwrap();
        git(&["commit", "-q", "-m", "all"]).unwrap();
        let mut out = std::collections::HashMap::new();
        for spec in specs {
            let listed = git(&["diff", "--name-only", "-z", "HEAD~1..HEAD", "--", spec]).unwrap();
            assert!(listed.status.success(), "{spec}: {listed:?}");
            let mut names: Vec<String> = listed
                .stdout
                .split(|b| *b == 0)
                .filter(|n| !n.is_empty())
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .collect();
            names.sort();
            out.insert(spec.to_string(), names);
        }
        Some(out)
    }

    #[test]
    fn stars_and_classes_are_wildmatchs() {
        let yes = |p: &str, t: &str| wildmatch(p.as_bytes(), t.as_bytes()) == Match::Yes;
        assert!(yes("**/a", "a"));
        assert!(yes("**/a", "x/y/a"));
        assert!(yes("x/**/a", "x/a"));
        assert!(yes("x/**/a", "x/y/z/a"));
        assert!(!yes("x/**", "x"));
        assert!(yes("x/**", "x/y/z"));
        assert!(!yes("*.md", "a/b.md"));
        assert!(yes("*.md", "b.md"));
        assert!(yes("a**b", "axxb"));
        assert!(!yes("a**b", "a/b"));
        assert!(yes("[!a]b", "cb"));
        assert!(!yes("[!a]b", "ab"));
        assert!(!yes("[a-c]", "/"));
        assert!(!yes("[[:alpha:]]", "a"));
        assert!(yes("a\\*", "a*"));
        assert!(!yes("a\\*", "ab"));
    }
}
