//! Versions of the agent CLI, as npm pins them.

/// `MAJOR.MINOR.PATCH`, with an optional `-prerelease` and `+build`, as npm pins it.
pub fn is_exact_version(v: &str) -> bool {
    let (core, _build) = v.split_once('+').unwrap_or((v, ""));
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
        && (!v.contains('+') || _build.split('.').all(ident))
}
