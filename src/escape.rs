//! Escaping for every place untrusted text can reach: workflow commands and log lines.
//!
//! The runner executes any line of stdout or stderr that starts with `::`, and the
//! legacy `##[command]` form anywhere in a line. Agent output, file contents and
//! PR data are untrusted, so they pass through one of these functions before they
//! are printed.

use std::borrow::Cow;

/// Escapes the message part of a workflow command (`::error ...::MESSAGE`): `%`,
/// CR and LF as the toolkit does, so the message stays on one line and its line
/// breaks survive; then, beyond the toolkit, every other control character (ANSI
/// escapes, NUL) is made visible and the legacy `##[` marker broken up.
pub fn command_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    one_line(&s).into_owned()
}

/// Escapes a property value of a workflow command (`file=VALUE`): as data, plus `:` and `,`.
pub fn command_property(s: &str) -> String {
    command_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Makes text safe for one log line: control characters (CR, LF, ESC, NUL, ...)
/// become visible escapes so the text cannot start a new line, colour the terminal
/// or hide itself, and the legacy `##[` command marker is broken up.
pub fn one_line(s: &str) -> Cow<'_, str> {
    let needs = s.chars().any(needs_escape) || s.contains("##[");
    if !needs {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out.replace("##[", "##\\["))
}

/// Control characters, and the invisible ones that can reorder or hide text (bidi
/// overrides, zero-width joiners, line and paragraph separators).
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{2028}' | '\u{2029}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// A workflow command line: `::NAME PROPS::MESSAGE`, every part escaped.
pub fn workflow_command(name: &str, props: &[(&str, String)], message: &str) -> String {
    let props: Vec<String> = props
        .iter()
        .map(|(k, v)| format!("{k}={}", command_property(v)))
        .collect();
    let sep = if props.is_empty() { "" } else { " " };
    format!(
        "::{name}{sep}{}::{}",
        props.join(","),
        command_data(message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_keeps_a_message_on_one_line() {
        assert_eq!(command_data("a%0A\r\nb"), "a%250A%0D%0Ab");
        assert_eq!(
            command_data("\u{1b}[31m\0##[x]"),
            "\\u{1b}[31m\\u{0}##\\[x]"
        );
    }

    #[test]
    fn properties_escape_separators() {
        assert_eq!(command_property("a:b,c%"), "a%3Ab%2Cc%25");
    }

    #[test]
    fn one_line_defuses_commands_and_terminal_escapes() {
        let s = one_line("x\n::error::boom\u{1b}[31m ##[set-output name=a]");
        assert!(!s.contains('\n'));
        assert!(!s.contains('\u{1b}'));
        assert!(!s.contains("##["));
        assert_eq!(one_line("plain text"), "plain text");
    }

    #[test]
    fn workflow_command_escapes_every_part() {
        let line = workflow_command("error", &[("file", "a,b.json".into())], "x\n::warning::y");
        assert_eq!(line, "::error file=a%2Cb.json::x%0A::warning::y");
        assert_eq!(line.lines().count(), 1);
    }
}
