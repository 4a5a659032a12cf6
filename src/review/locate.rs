//! Where a value starts in a JSON text: JSON Pointer -> line and column.
//!
//! serde_json forgets positions once a document is parsed, and schema errors
//! name values by JSON Pointer. One pass over the bytes maps the pointers asked
//! for to the line and column where each value starts, so an annotation lands
//! on the right line of `review.json` however it is formatted (minified,
//! pretty, CRLF). Columns count characters, not bytes, as editors do.

use std::collections::HashMap;

/// A 1-based line and column (in characters).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

/// Deeper than this the scan stops: the text was parsed first (serde_json
/// stops at 128 levels), so only bytes that are not JSON get here.
const MAX_NESTING: usize = 512;

/// The wanted pointers as a tree of tokens, so the scan follows only the
/// members and items on the way to a wanted value and skips the rest whole.
/// Tokens stay escaped as in the pointer (`~0`, `~1`); a document key is
/// escaped the same way to be looked up. Nodes are numbered, node 0 being the
/// document; the tree is a few flat lists, as it is built for each review.
struct Tree<'p> {
    /// Per node: its token, and the array index the token names (or `NONE`).
    token: Vec<&'p [u8]>,
    index: Vec<Id>,
    /// Per node: its children as a list, in the order they were made.
    first_child: Vec<Id>,
    last_child: Vec<Id>,
    next_sibling: Vec<Id>,
    /// Per node: how many children it has.
    count: Vec<Id>,
    /// (parent, token) -> child, for the children of nodes with many (an
    /// array's items); a few are compared in order instead.
    many: HashMap<(Id, &'p [u8]), Id, foldhash::fast::RandomState>,
    /// Per node: the byte offset where its value starts (`usize::MAX`: not seen).
    offset: Vec<usize>,
    /// Per pointer: its node (`NONE`: not a JSON Pointer).
    node_of: Vec<Id>,
}

/// A node number, or an array index. Pointers and texts are far smaller than
/// four billion tokens.
type Id = u32;
const NONE: Id = Id::MAX;

/// Up to this many children a node compares keys in order; past it, hashes.
const FEW_CHILDREN: Id = 8;

impl<'p> Tree<'p> {
    fn new(pointers: &[&'p str]) -> Tree<'p> {
        let mut tree = Tree {
            token: vec![b""],
            index: vec![NONE],
            first_child: vec![NONE],
            last_child: vec![NONE],
            next_sibling: vec![NONE],
            count: vec![0],
            many: HashMap::default(),
            offset: Vec::new(),
            node_of: Vec::with_capacity(pointers.len()),
        };
        for pointer in pointers {
            let node = match pointer.strip_prefix('/') {
                None if pointer.is_empty() => 0,
                None => NONE, // not a JSON Pointer: never found
                Some(rest) => {
                    let mut at = 0;
                    // Below a node made for this pointer, nothing needs looking up.
                    let mut made = false;
                    for token in rest.split('/').map(str::as_bytes) {
                        let found = if made { None } else { tree.child(at, token) };
                        at = match found {
                            Some(child) => child,
                            None => {
                                made = true;
                                tree.add(at, token)
                            }
                        };
                    }
                    at
                }
            };
            tree.node_of.push(node);
        }
        tree.offset = vec![usize::MAX; tree.token.len()];
        tree
    }

    fn add(&mut self, parent: Id, token: &'p [u8]) -> Id {
        let node = self.token.len() as Id;
        self.token.push(token);
        self.index.push(array_index(token).unwrap_or(NONE));
        self.first_child.push(NONE);
        self.last_child.push(NONE);
        self.next_sibling.push(NONE);
        self.count.push(0);
        let p = parent as usize;
        match self.last_child[p] {
            NONE => self.first_child[p] = node,
            last => self.next_sibling[last as usize] = node,
        }
        self.last_child[p] = node;
        self.count[p] += 1;
        if self.count[p] == FEW_CHILDREN + 1 {
            let all: Vec<Id> = self.siblings(parent).collect();
            for child in all {
                self.many
                    .insert((parent, self.token[child as usize]), child);
            }
        } else if self.count[p] > FEW_CHILDREN {
            self.many.insert((parent, token), node);
        }
        node
    }

    /// The children of `node`, in the order they were made.
    fn siblings(&self, node: Id) -> impl Iterator<Item = Id> + '_ {
        let real = |c: Id| (c != NONE).then_some(c);
        std::iter::successors(real(self.first_child[node as usize]), move |c| {
            real(self.next_sibling[*c as usize])
        })
    }

    fn child(&self, node: Id, token: &[u8]) -> Option<Id> {
        if self.count[node as usize] > FEW_CHILDREN {
            return self.many.get(&(node, token)).copied();
        }
        self.siblings(node)
            .find(|c| self.token[*c as usize] == token)
    }

    /// The child of `node` for a document key, given as the raw bytes between
    /// its quotes.
    fn member(&self, node: Id, raw: &[u8]) -> Option<Id> {
        if raw.iter().any(|b| matches!(b, b'\\' | b'/' | b'~')) {
            // Rare: decode the JSON escapes, then escape for a pointer.
            let quoted = [b"\"", raw, b"\""].concat();
            let key: String = serde_json::from_slice(&quoted).ok()?;
            let token = key.replace('~', "~0").replace('/', "~1");
            return self.child(node, token.as_bytes());
        }
        self.child(node, raw)
    }

    /// The children of `node` that name array items, by ascending index.
    fn items(&self, node: Id) -> Vec<(Id, Id)> {
        let mut items: Vec<(Id, Id)> = self
            .siblings(node)
            .map(|c| (self.index[c as usize], c))
            .filter(|(i, _)| *i != NONE)
            .collect();
        if !items.is_sorted() {
            items.sort_unstable();
        }
        items
    }
}

/// The array index a pointer token names: digits without a leading zero.
fn array_index(token: &[u8]) -> Option<Id> {
    match token {
        [b'0'] => Some(0),
        [b'1'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit) => {
            std::str::from_utf8(token)
                .ok()?
                .parse()
                .ok()
                .filter(|i| *i != NONE)
        }
        _ => None,
    }
}

/// Scans by byte offset only; line and column are worked out afterwards for the
/// few offsets that were found (see [`positions`]).
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

    /// Consumes `byte` after any whitespace.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        (self.peek() == Some(byte)).then(|| self.i += 1)
    }

    /// Skips a string starting at `"`, jumping to each quote or backslash;
    /// returns its raw bytes between the quotes. `None` when unterminated.
    fn string(&mut self) -> Option<&[u8]> {
        let start = self.i + 1;
        self.i = start;
        while let Some(n) = memchr::memchr2(b'"', b'\\', &self.text[self.i..]) {
            self.i += n;
            if self.text[self.i] == b'\\' {
                // Skip the escaped byte; a backslash at the very end ends the text.
                self.i = (self.i + 2).min(self.text.len());
            } else {
                self.i += 1;
                return Some(&self.text[start..self.i - 1]);
            }
        }
        self.i = self.text.len();
        None
    }

    /// Skips a value no pointer goes into: strings by jumps, containers by
    /// counting brackets outside strings.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => {
                let mut depth = 0usize;
                while let Some(b) = self.peek() {
                    match b {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
                None
            }
            _ => {
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.i += 1;
                }
                Some(())
            }
        }
    }

    /// Steps past a container's opening bracket; `true` when it closes at
    /// once with `close` (and steps past that too).
    fn open(&mut self, close: u8) -> bool {
        self.i += 1;
        self.skip_ws();
        let empty = self.peek() == Some(close);
        if empty {
            self.i += 1;
        }
        empty
    }

    /// After a member or item: `true` at a comma (another follows), `false`
    /// at `close`, `None` when the text is not JSON there.
    fn another(&mut self, close: u8) -> Option<bool> {
        self.skip_ws();
        let b = self.peek()?;
        if b != b',' && b != close {
            return None;
        }
        self.i += 1;
        Some(b == b',')
    }

    /// Reads the value at the cursor, which the pointer tree reaches at `node`.
    /// `None` when the text stops being JSON.
    fn value(&mut self, tree: &mut Tree<'_>, node: Option<Id>, depth: usize) -> Option<()> {
        self.skip_ws();
        let Some(node) = node else {
            return self.skip_value();
        };
        // A duplicated key is seen again: the last occurrence wins, as in serde_json.
        tree.offset[node as usize] = self.i;
        if tree.first_child[node as usize] == NONE || depth > MAX_NESTING {
            return self.skip_value();
        }
        match self.peek()? {
            b'{' => self.object(tree, node, depth),
            b'[' => self.array(tree, node, depth),
            _ => self.skip_value(),
        }
    }

    fn object(&mut self, tree: &mut Tree<'_>, node: Id, depth: usize) -> Option<()> {
        if self.open(b'}') {
            return Some(());
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return None;
            }
            let raw = self.string()?;
            let child = tree.member(node, raw);
            self.expect(b':')?;
            self.value(tree, child, depth + 1)?;
            if !self.another(b'}')? {
                return Some(());
            }
        }
    }

    fn array(&mut self, tree: &mut Tree<'_>, node: Id, depth: usize) -> Option<()> {
        if self.open(b']') {
            return Some(());
        }
        // Items are read in order, so a cursor walks the wanted ones.
        let items = tree.items(node);
        let (mut index, mut next): (Id, usize) = (0, 0);
        loop {
            while items.get(next).is_some_and(|(i, _)| *i < index) {
                next += 1;
            }
            let child = items
                .get(next)
                .filter(|(i, _)| *i == index)
                .map(|(_, c)| *c);
            self.value(tree, child, depth + 1)?;
            if !self.another(b']')? {
                return Some(());
            }
            index = index.saturating_add(1);
        }
    }
}

/// Finds where the values at `pointers` start: one entry per pointer, `None`
/// when the text has no such value. Expects a valid JSON text (parse it
/// first); on anything else it stops early and returns what it found.
/// A duplicated key resolves to its last occurrence, as serde_json keeps the last.
pub fn locate(text: &[u8], pointers: &[&str]) -> Vec<Option<Position>> {
    let mut tree = Tree::new(pointers);
    let mut cur = Cursor { text, i: 0 };
    if text.starts_with(crate::digest::UTF8_BOM) {
        cur.i = 3;
    }
    let _ = cur.value(&mut tree, Some(0), 0);
    let found: Vec<Option<usize>> = tree
        .node_of
        .iter()
        .map(|&n| {
            tree.offset
                .get(n as usize)
                .copied()
                .filter(|o| *o != usize::MAX)
        })
        .collect();
    positions(text, &found)
}

/// Characters in UTF-8 bytes, as an editor counts columns: one at each byte
/// that is not a continuation byte, CRs not counted. Counted in chunks small
/// enough for a byte counter, which the compiler turns into vector code: a
/// minified review is one long line.
fn characters(bytes: &[u8]) -> u64 {
    bytes
        .chunks(255)
        .map(|chunk| {
            let starts = chunk.iter().fold(0u8, |n, &b| {
                n + (u8::from((b as i8) >= -64) & u8::from(b != b'\r'))
            });
            u64::from(starts)
        })
        .sum()
}

/// Line and column of each byte offset, in one pass: offsets are visited in
/// order and columns counted from the previous offset on the same line, so a
/// single-line (minified) file costs no more than a pretty one.
fn positions(text: &[u8], offsets: &[Option<usize>]) -> Vec<Option<Position>> {
    let mut order: Vec<(usize, usize)> = offsets
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.map(|o| (o.min(text.len()), i)))
        .collect();
    order.sort_unstable();
    let mut out = vec![None; offsets.len()];
    let mut line = 1u64;
    let (mut last, mut column) = (0usize, 0u64);
    for (off, i) in order {
        let newlines = memchr::memchr_iter(b'\n', &text[last..off]).count() as u64;
        if newlines > 0 {
            line += newlines;
            last += memchr::memrchr(b'\n', &text[last..off]).expect("counted one") + 1;
            column = 0;
        }
        column += characters(&text[last..off]);
        last = off;
        out[i] = Some(Position {
            line,
            column: column + 1,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, pointers: &[&str]) -> Vec<Option<(u64, u64)>> {
        locate(text.as_bytes(), pointers)
            .into_iter()
            .map(|pos| pos.map(|pos| (pos.line, pos.column)))
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
    fn many_pointers_repeated_ones_and_ones_that_are_not_pointers() {
        // 3,000 items, each wanted twice over (two errors at one place), and a
        // member lookup on an object with many wanted keys (the hashed path).
        let items: Vec<String> = (0..3000).map(|i| format!("{{\"k{i}\": {i}}}")).collect();
        let members: Vec<String> = (0..20).map(|i| format!("\"m{i}\": [{i}]")).collect();
        let text = format!(
            "{{\"items\": [\n{}\n], \"obj\": {{{}}}}}",
            items.join(",\n"),
            members.join(", ")
        );
        let mut pointers: Vec<String> = Vec::new();
        for i in 0..3000 {
            pointers.push(format!("/items/{i}/k{i}"));
            pointers.push(format!("/items/{i}"));
        }
        for i in 0..20 {
            pointers.push(format!("/obj/m{i}/0"));
        }
        pointers.extend(["no-slash".into(), "/items/01".into(), "/items/3000".into()]);
        let refs: Vec<&str> = pointers.iter().map(String::as_str).collect();
        let found = locate(text.as_bytes(), &refs);
        for i in 0..3000 {
            let item = found[2 * i + 1].unwrap();
            assert_eq!((item.line, item.column), (i as u64 + 2, 1), "item {i}");
            let key = format!("k{i}");
            let value = found[2 * i].unwrap();
            assert_eq!(value.column, key.len() as u64 + 6, "value {i}");
        }
        let last = text.lines().last().unwrap();
        for i in 0..20 {
            let member = format!("\"m{i}\": [");
            let column = last.find(&member).unwrap() + member.len() + 1;
            let at = found[6000 + i].unwrap();
            assert_eq!((at.line, at.column), (3002, column as u64), "/obj/m{i}/0");
        }
        assert_eq!(&found[6020..], &[None, None, None]);
    }

    #[test]
    fn characters_are_counted_as_editors_count_columns() {
        let text = "aé\r\nж€😀x".repeat(100);
        let expected = text.chars().filter(|c| *c != '\r').count() as u64;
        assert_eq!(characters(text.as_bytes()), expected);
        assert_eq!(characters(b""), 0);
    }

    #[test]
    fn invalid_text_stops_early_without_panicking() {
        // Found by the `review` fuzz target: an unterminated key.
        for text in [
            "{\n\"", "{\"", "{\"a\"", "[\"", "{\"a\":", "\"", "\"\\", "{\"\\", "[\"a\\",
        ] {
            let _ = locate(text.as_bytes(), &["", "/a"]);
        }
    }

    #[test]
    fn last_duplicate_wins_and_strings_with_brackets_are_skipped() {
        let t = r#"{"a": "}]{[,\"", "a": {"b": 2}}"#;
        assert_eq!(at(t, &["/a", "/a/b"]), vec![Some((1, 23)), Some((1, 29))]);
    }
}
