//! Where a value starts in a JSON text: JSON Pointer -> line and column.
//!
//! serde_json forgets positions once a document is parsed, and schema errors
//! name values by JSON Pointer. One pass over the bytes maps the pointers asked
//! for to the line and column where each value starts, so an annotation lands
//! on the right line of `review.json` however it is formatted (minified,
//! pretty, CRLF). Columns count characters, not bytes, as editors do.

use std::collections::{HashMap, HashSet};

/// A 1-based line and column (in characters).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

/// Appends `/` and an escaped token to a pointer, without allocating.
fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

enum Frame {
    Object,
    Array(usize),
}

/// Scans by byte offset only; line and column are worked out afterwards for the
/// few offsets that were asked for (see [`positions`]).
struct Cursor<'a> {
    text: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// Skips a string starting at `"`, jumping to each quote or backslash;
    /// returns its raw bytes, quotes included.
    fn string(&mut self) -> &[u8] {
        let start = self.i;
        self.i += 1;
        while let Some(n) = memchr::memchr2(b'"', b'\\', &self.text[self.i..]) {
            self.i += n;
            if self.text[self.i] == b'\\' {
                // Skip the escaped byte; a backslash at the very end ends the text.
                self.i = (self.i + 2).min(self.text.len());
            } else {
                self.i += 1;
                return &self.text[start..self.i];
            }
        }
        self.i = self.text.len();
        &self.text[start..]
    }

    fn scalar(&mut self) {
        while let Some(b) = self.peek() {
            if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            self.i += 1;
        }
    }
}

/// Finds where the values at `wanted` pointers start. Expects a valid JSON text
/// (parse it first); on anything else it stops early and returns what it found.
/// A duplicated key resolves to its last occurrence, as serde_json keeps the last.
pub fn locate(text: &[u8], wanted: &HashSet<String>) -> HashMap<String, Position> {
    let offsets = offsets(text, wanted);
    let at = positions(text, offsets.values().copied().collect());
    offsets.into_iter().map(|(p, o)| (p, at[&o])).collect()
}

fn offsets(text: &[u8], wanted: &HashSet<String>) -> HashMap<String, usize> {
    let mut found = HashMap::new();
    if wanted.is_empty() {
        return found;
    }
    // Most values are not wanted; comparing lengths first spares a hash per value.
    let longest = wanted.iter().map(String::len).max().unwrap_or(0);
    let mut lengths = vec![false; longest + 1];
    for w in wanted {
        lengths[w.len()] = true;
    }
    let mut cur = Cursor { text, i: 0 };
    if text.starts_with(crate::digest::UTF8_BOM) {
        cur.i = 3;
    }
    let mut stack: Vec<Frame> = Vec::new();
    // The pointer of the value about to start, and where each level's token begins.
    let mut pointer = String::new();
    let mut marks: Vec<usize> = Vec::new();

    loop {
        // A value starts here.
        cur.skip_ws();
        if lengths.get(pointer.len()) == Some(&true) && wanted.contains(&pointer) {
            found.insert(pointer.clone(), cur.i);
        }
        match cur.peek() {
            Some(b'{') => {
                cur.i += 1;
                cur.skip_ws();
                if cur.peek() == Some(b'}') {
                    cur.i += 1;
                } else if !enter_key(&mut cur, &mut stack, &mut pointer, &mut marks) {
                    return found;
                } else {
                    continue;
                }
            }
            Some(b'[') => {
                cur.i += 1;
                cur.skip_ws();
                if cur.peek() == Some(b']') {
                    cur.i += 1;
                } else {
                    stack.push(Frame::Array(0));
                    marks.push(pointer.len());
                    pointer.push_str("/0");
                    continue;
                }
            }
            Some(b'"') => {
                cur.string();
            }
            Some(_) => cur.scalar(),
            None => return found,
        }
        // After a value: close finished containers, move to the next member.
        loop {
            let Some(frame) = stack.last_mut() else {
                return found;
            };
            cur.skip_ws();
            let sep = cur.peek();
            if let Some(b',' | b']' | b'}') = sep {
                cur.i += 1;
            } else {
                return found;
            }
            pointer.truncate(*marks.last().expect("a mark per frame"));
            match (frame, sep) {
                (Frame::Array(n), Some(b',')) => {
                    *n += 1;
                    use std::fmt::Write;
                    let _ = write!(pointer, "/{n}");
                    break;
                }
                (Frame::Object, Some(b',')) => {
                    stack.pop();
                    marks.pop();
                    cur.skip_ws();
                    if !enter_key(&mut cur, &mut stack, &mut pointer, &mut marks) {
                        return found;
                    }
                    break;
                }
                _ => {
                    stack.pop();
                    marks.pop();
                }
            }
        }
    }
}

/// Line and column of each byte offset, in one pass: offsets are visited in
/// order and columns counted from the previous offset on the same line, so a
/// single-line (minified) file costs no more than a pretty one.
fn positions(text: &[u8], mut offsets: Vec<usize>) -> HashMap<usize, Position> {
    offsets.sort_unstable();
    offsets.dedup();
    let mut out = HashMap::with_capacity(offsets.len());
    let mut line = 1u64;
    let (mut last, mut column) = (0usize, 0u64);
    for off in offsets {
        let off = off.min(text.len());
        let newlines = memchr::memchr_iter(b'\n', &text[last..off]).count() as u64;
        if newlines > 0 {
            line += newlines;
            last += memchr::memrchr(b'\n', &text[last..off]).expect("counted one") + 1;
            column = 0;
        }
        // Characters start at every byte that is not a UTF-8 continuation byte.
        column += text[last..off]
            .iter()
            .filter(|b| **b & 0xC0 != 0x80 && **b != b'\r')
            .count() as u64;
        last = off;
        out.insert(
            off,
            Position {
                line,
                column: column + 1,
            },
        );
    }
    out
}

/// Reads `"key":` and points at its value.
fn enter_key(
    cur: &mut Cursor,
    stack: &mut Vec<Frame>,
    pointer: &mut String,
    marks: &mut Vec<usize>,
) -> bool {
    if cur.peek() != Some(b'"') {
        return false;
    }
    let raw = cur.string();
    if raw.len() < 2 || !raw.ends_with(b"\"") {
        return false; // an unterminated key: the text is not JSON
    }
    let mark = pointer.len();
    if raw.contains(&b'\\') {
        match serde_json::from_slice::<String>(raw) {
            Ok(k) => push_token(pointer, &k),
            Err(_) => return false,
        }
    } else {
        push_token(
            pointer,
            &String::from_utf8_lossy(&raw[1..raw.len().saturating_sub(1)]),
        );
    }
    cur.skip_ws();
    if cur.peek() != Some(b':') {
        pointer.truncate(mark);
        return false;
    }
    cur.i += 1;
    stack.push(Frame::Object);
    marks.push(mark);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, pointers: &[&str]) -> Vec<Option<(u64, u64)>> {
        let wanted: HashSet<String> = pointers.iter().map(|p| p.to_string()).collect();
        let found = locate(text.as_bytes(), &wanted);
        pointers
            .iter()
            .map(|p| found.get(*p).map(|pos| (pos.line, pos.column)))
            .collect()
    }

    #[test]
    fn minified() {
        let t = r#"{"a":[1,{"b":"x"},[]],"c":{}}"#;
        assert_eq!(
            at(
                t,
                &["", "/a", "/a/0", "/a/1", "/a/1/b", "/a/2", "/c", "/zz"]
            ),
            vec![
                Some((1, 1)),
                Some((1, 6)),
                Some((1, 7)),
                Some((1, 9)),
                Some((1, 14)),
                Some((1, 19)),
                Some((1, 27)),
                None
            ]
        );
    }

    #[test]
    fn pretty_crlf_and_unicode() {
        let t = "{\r\n  \"é\": \"ü\",\r\n  \"k\": [\r\n    true,\r\n    \"ж\", 5\r\n  ]\r\n}";
        assert_eq!(
            at(t, &["/é", "/k", "/k/0", "/k/1", "/k/2"]),
            vec![
                Some((2, 8)),
                Some((3, 8)),
                Some((4, 5)),
                Some((5, 5)),
                Some((5, 10))
            ]
        );
    }

    #[test]
    fn escaped_keys_and_pointer_tokens() {
        let t = r#"{"a/b": 1, "t~": 2, "\u0041": 3, "q\"": [0]}"#;
        assert_eq!(
            at(t, &["/a~1b", "/t~0", "/A", "/q\"/0"]),
            vec![Some((1, 9)), Some((1, 18)), Some((1, 31)), Some((1, 42))]
        );
    }

    #[test]
    fn invalid_text_stops_early_without_panicking() {
        // Found by the `review` fuzz target: an unterminated key.
        for text in [
            "{\n\"", "{\"", "{\"a\"", "[\"", "{\"a\":", "\"", "\"\\", "{\"\\", "[\"a\\",
        ] {
            let wanted: HashSet<String> = ["".to_string(), "/a".to_string()].into();
            let _ = locate(text.as_bytes(), &wanted);
        }
    }

    #[test]
    fn last_duplicate_wins_and_strings_with_brackets_are_skipped() {
        let t = r#"{"a": "}]{[,\"", "a": {"b": 2}}"#;
        assert_eq!(at(t, &["/a", "/a/b"]), vec![Some((1, 23)), Some((1, 29))]);
    }
}
