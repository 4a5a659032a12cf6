//! A unified diff of two texts, bounded in time and size: one home for the
//! prompt diff of `compare` and the diff of each changed file of the base
//! comparison.

/// Lines of prompt diff shown before the rest is counted.
pub(crate) const MAX_DIFF_LINES: usize = 200;
/// Bytes of prompt diff shown at most.
pub(crate) const MAX_DIFF_BYTES: usize = 24 * 1024;

/// A unified diff (three lines of context) of two prompt texts, cut at
/// [`MAX_DIFF_LINES`] lines or [`MAX_DIFF_BYTES`] bytes with a line saying
/// how much is left out.
pub(crate) fn unified(base_name: &str, base: &str, head_name: &str, head: &str) -> String {
    // Two files of unique lines cost the square of their length: past the
    // deadline the diff is coarser (whole runs replaced), never slower.
    let diff = similar::TextDiff::configure()
        .timeout(crate::limits::DIFF_TIME)
        .diff_lines(base, head);
    let full = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("base/{base_name}"), &format!("head/{head_name}"))
        .missing_newline_hint(false)
        .to_string();
    let lines: Vec<&str> = full.lines().collect();
    let mut out = String::new();
    let mut shown = 0;
    for line in &lines {
        if shown == MAX_DIFF_LINES || out.len() + line.len() + 1 > MAX_DIFF_BYTES {
            break;
        }
        out.push_str(line);
        out.push('\n');
        shown += 1;
    }
    if shown < lines.len() {
        out.push_str(&format!(
            "... {} more diff lines not shown\n",
            lines.len() - shown
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_diff_is_unified_and_bounded() {
        let d = unified("a.md", "one\ntwo\nthree\n", "b.md", "one\n2\nthree\n");
        assert_eq!(
            d,
            "--- base/a.md\n+++ head/b.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
        );
        let long_base: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let d = unified("a.md", &long_base, "b.md", "");
        assert_eq!(d.lines().count(), MAX_DIFF_LINES + 1);
        assert!(d.ends_with("more diff lines not shown\n"), "{d}");
        assert!(d.len() <= MAX_DIFF_BYTES + 100);
    }
}
