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
/// escaped the same way to be looked up.
struct Tree<'p> {
    /// (parent node, token) -> child node. Node 0 is the document. Looked up
    /// while building, and for nodes with many members.
    edges: HashMap<(usize, &'p [u8]), usize, foldhash::fast::RandomState>,
    /// Node `n`'s children are `children[first[n]..first[n + 1]]`: array
    /// indexes first, ascending (an array is read in order, so a cursor walks
    /// them), then the other tokens. Few per node, compared in order.
    first: Vec<usize>,
    children: Vec<Child<'p>>,
    /// Per node: the byte offset where its value starts, once seen.
    offset: Vec<Option<usize>>,
    /// Per pointer: its node, `None` when it is not a JSON Pointer.
    node_of: Vec<Option<usize>>,
}

#[derive(Copy, Clone)]
struct Child<'p> {
    token: &'p [u8],
    /// The array index the token names, if it names one.
    index: Option<usize>,
    node: usize,
}

/// Up to this many children a node compares keys in order; past it, hashes.
const FEW_CHILDREN: usize = 8;

impl<'p> Tree<'p> {
    fn new(pointers: &[&'p str]) -> Tree<'p> {
        let mut edges: HashMap<(usize, &[u8]), usize, _> =
            HashMap::with_capacity_and_hasher(pointers.len(), Default::default());
        // Each child with its parent, in the order they were made.
        let mut made: Vec<(usize, Child)> = Vec::with_capacity(pointers.len());
        let mut node_of = Vec::with_capacity(pointers.len());
        for pointer in pointers {
            let node = match pointer.strip_prefix('/') {
                None if pointer.is_empty() => Some(0),
                None => None, // not a JSON Pointer: never found
                Some(rest) => Some(rest.split('/').fold(0, |at, token| {
                    let next = made.len() + 1;
                    let child = *edges.entry((at, token.as_bytes())).or_insert(next);
                    if child == next {
                        let token = token.as_bytes();
                        let index = array_index(token);
                        made.push((
                            at,
                            Child {
                                token,
                                index,
                                node: next,
                            },
                        ));
                    }
                    child
                })),
            };
            node_of.push(node);
        }
        // Children grouped by parent (a counting sort), then put in order.
        let nodes = made.len() + 1;
        let mut first = vec![0; nodes + 1];
        for (parent, _) in &made {
            first[parent + 1] += 1;
        }
        for n in 0..nodes {
            first[n + 1] += first[n];
        }
        let mut fill = first.clone();
        let mut children = vec![
            Child {
                token: b"",
                index: None,
                node: 0
            };
            made.len()
        ];
        for (parent, child) in made {
            children[fill[parent]] = child;
            fill[parent] += 1;
        }
        for n in 0..nodes {
            let own = &mut children[first[n]..first[n + 1]];
            let key = |c: &Child| (c.index.is_none(), c.index);
            if !own.is_sorted_by_key(key) {
                own.sort_by_key(key);
            }
        }
        Tree {
            edges,
            first,
            children,
            offset: vec![None; nodes],
            node_of,
        }
    }

    fn children(&self, node: usize) -> &[Child<'p>] {
        &self.children[self.first[node]..self.first[node + 1]]
    }

    /// The child of `node` for a document key, given as the raw bytes between
    /// its quotes.
    fn member(&self, node: usize, raw: &[u8]) -> Option<usize> {
        if raw.iter().any(|b| matches!(b, b'\\' | b'/' | b'~')) {
            // Rare: decode the JSON escapes, then escape for a pointer.
            let quoted = [b"\"", raw, b"\""].concat();
            let key: String = serde_json::from_slice(&quoted).ok()?;
            let token = key.replace('~', "~0").replace('/', "~1");
            return self.lookup(node, token.as_bytes());
        }
        self.lookup(node, raw)
    }

    fn lookup(&self, node: usize, token: &[u8]) -> Option<usize> {
        let children = self.children(node);
        if children.len() > FEW_CHILDREN {
            return self.edges.get(&(node, token)).copied();
        }
        children.iter().find(|c| c.token == token).map(|c| c.node)
    }
}

/// The array index a pointer token names: digits without a leading zero.
fn array_index(token: &[u8]) -> Option<usize> {
    match token {
        [b'0'] => Some(0),
        [b'1'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit) => {
            std::str::from_utf8(token).ok()?.parse().ok()
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

    /// Reads the value at the cursor, which the pointer tree reaches at `node`.
    /// `None` when the text stops being JSON.
    fn value(&mut self, tree: &mut Tree<'_>, node: Option<usize>, depth: usize) -> Option<()> {
        self.skip_ws();
        let Some(node) = node else {
            return self.skip_value();
        };
        // A duplicated key is seen again: the last occurrence wins, as in serde_json.
        tree.offset[node] = Some(self.i);
        if tree.children(node).is_empty() || depth > MAX_NESTING {
            return self.skip_value();
        }
        match self.peek()? {
            b'{' => self.object(tree, node, depth),
            b'[' => self.array(tree, node, depth),
            _ => self.skip_value(),
        }
    }

    fn object(&mut self, tree: &mut Tree<'_>, node: usize, depth: usize) -> Option<()> {
        self.i += 1;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
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
            self.skip_ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, tree: &mut Tree<'_>, node: usize, depth: usize) -> Option<()> {
        self.i += 1;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Some(());
        }
        // The node's array indexes come first, ascending: a cursor walks them.
        let (mut index, mut next) = (0, 0);
        loop {
            let items = tree.children(node);
            while items
                .get(next)
                .is_some_and(|c| c.index.is_some_and(|i| i < index))
            {
                next += 1;
            }
            let child = items
                .get(next)
                .filter(|c| c.index == Some(index))
                .map(|c| c.node);
            self.value(tree, child, depth + 1)?;
            self.skip_ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
            index += 1;
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
        .map(|n| n.and_then(|n| tree.offset[n]))
        .collect();
    positions(text, &found)
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
        // Characters start at every byte that is not a UTF-8 continuation byte.
        column += text[last..off]
            .iter()
            .filter(|b| **b & 0xC0 != 0x80 && **b != b'\r')
            .count() as u64;
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
        let last_line = 3000 + 2;
        let obj: Vec<u64> = found[6000..6020].iter().map(|p| p.unwrap().line).collect();
        assert!(obj.iter().all(|l| *l == last_line));
        assert!(found[6000].unwrap().column < found[6019].unwrap().column);
        assert_eq!(&found[6020..], &[None, None, None]);
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
