//! Versions of the agent CLI, as npm pins them.

/// The exact version `v` names, as npm reads it: `MAJOR.MINOR.PATCH`, with an
/// optional `-prerelease` and `+build`, and an optional leading `v` or `=`
/// (npm installs `v0.169.0` as 0.169.0). `None` for a tag or a range.
pub(crate) fn exact(v: &str) -> Option<&str> {
    let v = v.trim();
    let v = v.strip_prefix('=').map_or(v, str::trim_start);
    let v = v.strip_prefix(['v', 'V']).unwrap_or(v);
    is_semver(v).then_some(v)
}

/// Whether `v` names one exact version (see [`exact`]).
pub(crate) fn is_exact_version(v: &str) -> bool {
    exact(v).is_some()
}

fn is_semver(v: &str) -> bool {
    let (core, build) = match v.split_once('+') {
        Some((c, b)) => (c, Some(b)),
        None => (v, None),
    };
    let (core, pre) = match core.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (core, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let numeric = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'))
    };
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    numbers.len() == 3
        && numbers.iter().all(|n| numeric(n))
        && pre.is_none_or(|p| p.split('.').all(ident))
        && build.is_none_or(|b| b.split('.').all(ident))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_versions_as_npm_reads_them() {
        for (given, version) in [
            ("0.169.0", "0.169.0"),
            ("v0.169.0", "0.169.0"),
            ("=0.169.0", "0.169.0"),
            ("1.2.3-alpha.1", "1.2.3-alpha.1"),
            ("1.0.0+build.5", "1.0.0+build.5"),
        ] {
            assert_eq!(exact(given), Some(version), "{given}");
        }
        for bad in [
            "latest",
            "^1.2",
            "1.x",
            ">=0.1",
            "~0.1.2",
            "1.2",
            "01.2.3",
            "*",
            "1.2.3 || 2",
            "vv1.2.3",
            "",
            "v",
        ] {
            assert_eq!(exact(bad), None, "{bad}");
        }
    }
}
