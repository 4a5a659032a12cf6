//! Markdown for the job summary and the check run, with untrusted text kept as text.
//!
//! File names, agent output and PR data end up in GitHub-flavoured Markdown that
//! GitHub renders on the run page and the PR. Escaped text cannot open HTML, load
//! an image, make a link, break out of a table cell or a code span, notify
//! anyone with an `@mention`, link an issue (`#123`, `GH-123`), become an emoji
//! (`:shipit:`), or hide or reorder itself: bidi controls and other invisible
//! format characters are shown as `[U+202E]`, and tabs become spaces.

/// Plain text in a paragraph, a list item or a table cell, on one line.
///
/// Only characters that can start markup are escaped, so the Markdown source stays
/// readable on a terminal too: `[` (links, images), `<` and `&` (HTML, entities),
/// emphasis, code and strike markers, `|` (table cells), `$` (math), and list or
/// heading markers at the start.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8 + 8);
    push_text(&mut out, s);
    out
}

/// Bytes that stand for themselves in [`text`]: printable ASCII that starts
/// no markup, no reference (`gh-`), shortcode (`:`), autolink (`www.`, `://`)
/// or mention. A run of them is copied at once; one summary holds thousands
/// of findings.
fn plain(b: u8) -> bool {
    PLAIN[usize::from(b)]
}

/// [`plain`] as a table: looked up once per byte of every cell.
const PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x20;
    while b < 0x7f {
        table[b] = true;
        b += 1;
    }
    let special = b"\\`*_[]<>&|~$!@#:Ggw";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = false;
        i += 1;
    }
    table
};

/// [`text`], appended to `out`.
fn push_text(out: &mut String, s: &str) {
    use std::fmt::Write;
    let start = out.len();
    let bytes = s.as_bytes();
    let mut previous: Option<char> = None;
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..].iter().take_while(|b| plain(**b)).count();
        if run > 0 {
            out.push_str(&s[i..i + run]);
            previous = Some(bytes[i + run - 1] as char);
            i += run;
            continue;
        }
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        let rest = &s[i..];
        let next = rest.chars().next();
        let before = previous.replace(c);
        match c {
            '\r' | '\n' | '\u{2028}' | '\u{2029}' | '\t' => out.push(' '),
            c if invisible(c) => {
                let _ = write!(out, "\\[U+{:04X}\\]", c as u32);
            }
            c if c.is_control() => out.push('\u{FFFD}'),
            // `GH-45` links like `#45`: break it where GitHub looks for it.
            'G' | 'g'
                if !before.is_some_and(char::is_alphanumeric)
                    && matches!(next, Some('H' | 'h')) =>
            {
                out.push(c);
                out.push(next.unwrap_or('H'));
                previous = next;
                i += 1;
                if s[i..].starts_with('-') {
                    out.push('\u{200B}');
                }
            }
            // Bare URLs are autolinked from text: break the scheme marker.
            ':' if rest.starts_with("//") => out.push_str(":\u{200B}"),
            // `:shipit:` becomes an emoji: break the shortcode after its colon.
            ':' if next
                .is_some_and(|n| n.is_ascii_alphanumeric() || matches!(n, '_' | '+' | '-')) =>
            {
                out.push_str(":\u{200B}");
            }
            // And the `www.` one.
            'w' if rest.starts_with("ww.") => {
                out.push_str("www\u{200B}.");
                previous = Some('.');
                i += 3;
            }
            // Mentions and references are linked after rendering, escapes or not:
            // a zero-width space after the sigil breaks them and stays invisible.
            '@' | '#' => {
                out.push('\\');
                out.push(c);
                if next.is_some_and(|n| n.is_alphanumeric() || n == '-' || n == '_') {
                    out.push('\u{200B}');
                }
            }
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '|' | '~' | '$' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    // A list marker or an ordered-list number at the start would nest a list.
    let shown = &out[start..];
    let lead = shown.len() - shown.trim_start().len();
    let head = &shown[lead..];
    let digits = head.bytes().take_while(u8::is_ascii_digit).count();
    if head.starts_with(['-', '+', '=']) || (digits > 0 && head[digits..].starts_with(['.', ')'])) {
        out.insert(start + lead + digits, '\\');
    }
}

/// One of our sentences, where names are quoted in backticks: each quoted part
/// becomes a code span and the rest plain text. Untrusted text inside is still
/// escaped whichever way it is split.
pub(crate) fn prose(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len() % 2 == 0 {
        return text(s); // an unmatched backtick: not our quoting
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| if i % 2 == 1 { code(p) } else { text(p) })
        .collect()
}

/// A code span (for paths, hashes, versions): nothing inside is Markdown.
/// `|` is escaped because GFM splits table cells on it even inside code.
pub fn code(s: &str) -> String {
    let mut shown = String::with_capacity(s.len() + 8);
    push_visible(&mut shown, s, "\\|");
    let mut longest = 0;
    let mut run = 0;
    for b in shown.bytes() {
        run = if b == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if shown.is_empty() {
        return "` `".to_string();
    }
    let pad = if shown.starts_with('`')
        || shown.ends_with('`')
        || shown.starts_with(' ') && shown.ends_with(' ') && !shown.trim().is_empty()
    {
        " "
    } else {
        ""
    };
    let mut out = String::with_capacity(shown.len() + 2 * (longest + 2));
    for _ in 0..=longest {
        out.push('`');
    }
    out.push_str(pad);
    out.push_str(&shown);
    out.push_str(pad);
    for _ in 0..=longest {
        out.push('`');
    }
    out
}

/// Characters that change how text around them reads without showing
/// themselves: bidi embeddings, overrides and isolates, zero-width spaces and
/// joiners, marks, the byte order mark (Trojan Source and its kin).
pub(crate) fn invisible(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        | '\u{2060}'..='\u{2064}' | '\u{061C}' | '\u{FEFF}')
}

/// Plain text (a check run's title, a log line): each invisible format
/// character shown as `[U+XXXX]`, line breaks and tabs as spaces, other
/// control characters as U+FFFD. Markup is not escaped: plain text has none.
pub(crate) fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_visible(&mut out, s, "|");
    out
}

/// [`visible`], appended to `out`, with each `|` written as `bar`.
fn push_visible(out: &mut String, s: &str, bar: &str) {
    use std::fmt::Write;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..]
            .iter()
            .take_while(|b| (0x20..0x7f).contains(*b) && **b != b'|')
            .count();
        out.push_str(&s[i..i + run]);
        i += run;
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        match c {
            '|' => out.push_str(bar),
            '\r' | '\n' | '\u{2028}' | '\u{2029}' | '\t' => out.push(' '),
            c if invisible(c) => {
                let _ = write!(out, "[U+{:04X}]", c as u32);
            }
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// A fenced code block: nothing inside is Markdown, and no line of `body`
/// can close the fence early (the fence is longer than any run of backticks
/// in it). Invisible characters are shown and tabs become spaces, line by line.
pub(crate) fn fenced(info: &str, body: &str) -> String {
    let shown: Vec<String> = body.lines().map(visible).collect();
    let longest = shown
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{info}\n{}\n{fence}\n", shown.join("\n"))
}

/// A long path cut in the middle, keeping its start and its file name:
/// `src/very/deep/…/mod.rs`. Tables stay within the page.
pub(crate) fn shorten_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max || max < 5 {
        return s.to_string();
    }
    let tail = (max - 1) * 3 / 5;
    let head = max - 1 - tail;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// The first 12 characters of a SHA-256, enough to tell two apart at a glance;
/// the evidence block has the full value.
pub(crate) fn short_hash(s: &str) -> String {
    if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        s[..12].to_string()
    } else {
        s.to_string()
    }
}

/// Untrusted text for a table cell: [`text`], and a long unbroken word can
/// wrap (a zero-width space every 24 characters of a run longer than 32), so
/// one word cannot push a column off the page. The breaks go between escaped
/// pieces, never inside an escape.
pub(crate) fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8 + 8);
    let long_word = |from: usize| {
        s[from..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .nth(32)
            .is_some()
    };
    // Most cells have no such word: the whole is one piece. Counted in bytes,
    // taking every byte past ASCII as part of a word: a word of 33 characters
    // has at least 33 such bytes, so none is missed.
    let mut run = 0;
    if !s.bytes().any(|b| {
        run = if b.is_ascii_whitespace() || b == 0x0b {
            0
        } else {
            run + 1
        };
        run > 32
    }) {
        push_text(&mut out, s);
        return out;
    }
    let (mut piece, mut run, mut breaking) = (0, 0, false);
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            run = 0;
            breaking = false;
        } else {
            if run == 0 {
                breaking = long_word(i);
            }
            if breaking && run > 0 && run % 24 == 0 {
                push_text(&mut out, &s[piece..i]);
                piece = i;
                out.push('\u{200B}');
            }
            run += 1;
        }
    }
    push_text(&mut out, &s[piece..]);
    out
}

/// Cuts `s` to at most `max` characters, marking the cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    // No more bytes than `max` is no more characters: most text stops here.
    if s.len() <= max || s.char_indices().nth(max).is_none() {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain, char-by-char escaping [`text`] and [`cell`] must equal: the
    /// fast versions copy runs of plain bytes at once and break autolinks
    /// as they go, and any difference is a hole in the escaping.
    fn reference_text(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars().peekable();
        let mut previous = None;
        while let Some(c) = chars.next() {
            let before = previous.replace(c);
            match c {
                '\r' | '\n' | '\u{2028}' | '\u{2029}' | '\t' => out.push(' '),
                c if invisible(c) => out.push_str(&format!("\\[U+{:04X}\\]", c as u32)),
                c if c.is_control() => out.push('\u{FFFD}'),
                'G' | 'g'
                    if !before.is_some_and(char::is_alphanumeric)
                        && chars.peek().is_some_and(|n| *n == 'H' || *n == 'h') =>
                {
                    out.push(c);
                    let h = chars.next().unwrap_or('H');
                    previous = Some(h);
                    out.push(h);
                    if chars.peek() == Some(&'-') {
                        out.push('\u{200B}');
                    }
                }
                ':' if chars
                    .peek()
                    .is_some_and(|n| n.is_ascii_alphanumeric() || matches!(n, '_' | '+' | '-')) =>
                {
                    out.push(':');
                    out.push('\u{200B}');
                }
                '@' | '#' => {
                    out.push('\\');
                    out.push(c);
                    if chars
                        .peek()
                        .is_some_and(|n| n.is_alphanumeric() || *n == '-' || *n == '_')
                    {
                        out.push('\u{200B}');
                    }
                }
                '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '|' | '~' | '$' | '!' => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
        let lead = out.len() - out.trim_start().len();
        let head = &out[lead..];
        let digits = head.bytes().take_while(u8::is_ascii_digit).count();
        if head.starts_with(['-', '+', '='])
            || (digits > 0 && head[digits..].starts_with(['.', ')']))
        {
            out.insert(lead + digits, '\\');
        }
        out.replace("://", ":\u{200B}//")
            .replace("www.", "www\u{200B}.")
    }

    fn reference_cell(s: &str) -> String {
        let mut out = String::new();
        let mut piece = String::new();
        let mut run = 0;
        let long_word = |from: usize| {
            s[from..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .nth(32)
                .is_some()
        };
        let mut breaking = false;
        for (i, c) in s.char_indices() {
            if c.is_whitespace() {
                run = 0;
                breaking = false;
            } else {
                if run == 0 {
                    breaking = long_word(i);
                }
                if breaking && run > 0 && run % 24 == 0 {
                    out.push_str(&reference_text(&piece));
                    piece.clear();
                    out.push('\u{200B}');
                }
                run += 1;
            }
            piece.push(c);
        }
        out.push_str(&reference_text(&piece));
        out
    }

    fn reference_visible(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            match c {
                '\r' | '\n' | '\u{2028}' | '\u{2029}' | '\t' => out.push(' '),
                c if invisible(c) => out.push_str(&format!("[U+{:04X}]", c as u32)),
                c if c.is_control() => out.push('\u{FFFD}'),
                c => out.push(c),
            }
        }
        out
    }

    fn reference_code(s: &str) -> String {
        let s = reference_visible(s).replace('|', "\\|");
        let longest = s
            .split(|c| c != '`')
            .map(|run| run.len())
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest + 1);
        let pad = if s.starts_with('`')
            || s.ends_with('`')
            || s.starts_with(' ') && s.ends_with(' ') && !s.trim().is_empty()
        {
            " "
        } else {
            ""
        };
        if s.is_empty() {
            return "` `".to_string();
        }
        format!("{fence}{pad}{s}{pad}{fence}")
    }

    #[test]
    fn fast_escaping_equals_the_plain_reference() {
        // Every character the escaping treats apart, and plain ones between.
        let alphabet: Vec<char> = "aGgHhwW.:/@#-_+=)1 \t\n\r\u{b}\u{c}\u{a0}\u{3000}\\`*[]<>&|~$!\u{7f}\u{1b}\u{202E}\u{200B}\u{2028}é日x"
            .chars()
            .collect();
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 48) as usize;
            let mut s = String::new();
            let mut r = seed;
            for _ in 0..len {
                r = r
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push(alphabet[(r >> 33) as usize % alphabet.len()]);
            }
            assert_eq!(text(&s), reference_text(&s), "text of {s:?}");
            assert_eq!(code(&s), reference_code(&s), "code of {s:?}");
            assert_eq!(visible(&s), reference_visible(&s), "visible of {s:?}");
            let long = format!("{s} {} {s}", s.replace(' ', "x").repeat(3));
            assert_eq!(cell(&long), reference_cell(&long), "cell of {long:?}");
        }
        for s in [
            "www.x", "wwww.x", "http://a", "gh-1", "xgh-1", "GHH-1", "- a", " 12) b", "ww", "w",
        ] {
            assert_eq!(text(s), reference_text(s), "{s:?}");
        }
    }

    #[test]
    fn text_escapes_markup() {
        assert_eq!(text("<img src=x>"), "\\<img src=x\\>");
        assert_eq!(text("a|b"), "a\\|b");
        assert_eq!(text("it's fine: a-b."), "it's fine: a-b.");
        assert_eq!(text("- x"), "\\- x");
        assert_eq!(text("12. x"), "12\\. x");
        assert_eq!(text("line\nnext"), "line next");
        assert_eq!(text("@org/team"), "\\@\u{200B}org/team");
        assert_eq!(text("#1"), "\\#\u{200B}1");
        assert!(text("see https://x.io").contains("\u{200B}"));
    }

    #[test]
    fn nothing_untrusted_links_turns_into_an_emoji_or_hides() {
        assert_eq!(text("see GH-45"), "see GH\u{200B}-45");
        assert_eq!(text("gh-7 and THE GHOST"), "gh\u{200B}-7 and THE GHOST");
        assert_eq!(text(":shipit: now"), ":\u{200B}shipit: now");
        assert_eq!(
            text("price \u{202E}cba\u{202C}"),
            "price \\[U+202E\\]cba\\[U+202C\\]"
        );
        assert_eq!(text("a\tb"), "a b");
        assert_eq!(text("x\u{200B}y\u{FEFF}"), "x\\[U+200B\\]y\\[U+FEFF\\]");
        assert_eq!(code("a\u{2066}b\tc"), "`a[U+2066]b c`");
    }

    #[test]
    fn fences_paths_and_words_stay_within_the_page() {
        assert_eq!(
            fenced("diff", "+a\n ```\n-b"),
            "````diff\n+a\n ```\n-b\n````\n"
        );
        assert_eq!(fenced("", "x\u{202E}\ty"), "```\nx[U+202E] y\n```\n");
        let long = format!("src/{}/file.rs", "deep/".repeat(40));
        let short = shorten_middle(&long, 40);
        assert_eq!(short.chars().count(), 40);
        assert!(
            short.starts_with("src/deep") && short.ends_with("/file.rs") && short.contains('…')
        );
        assert_eq!(shorten_middle("a.rs", 40), "a.rs");
        assert_eq!(short_hash(&"ab".repeat(32)), "abababababab");
        assert_eq!(short_hash("v1.2"), "v1.2");
        let word = "x".repeat(50);
        assert_eq!(cell(&format!("a {word}")).matches('\u{200B}').count(), 2);
        assert_eq!(cell("short words stay"), "short words stay");
        // A break never lands inside an escape.
        let tricky = "[".repeat(60);
        let shown = cell(&tricky);
        assert_eq!(shown.replace('\u{200B}', ""), text(&tricky));
        assert!(!shown.contains("\\\u{200B}"), "{shown}");
    }

    #[test]
    fn prose_quotes_names_as_code() {
        assert_eq!(prose("`a.json` is <bad>"), "`a.json` is \\<bad\\>");
        assert_eq!(prose("odd ` tick"), "odd \\` tick");
    }

    #[test]
    fn code_spans_cannot_be_closed_early() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code(""), "` `");
    }
}
