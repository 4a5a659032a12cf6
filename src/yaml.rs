//! A workflow file as a tree of nodes that know where they are.
//!
//! Findings must land on the line the user reads, so positions come from the
//! YAML parser's own events (yaml-rust2's marks), never from searching the
//! text: a `uses:` quoted inside a `run: |` script is a scalar, not a step.
//! Anchors are resolved here. A node reached through an alias (`- *step`,
//! `with: *inputs`, `<<: *defaults`) takes the alias's position: a finding
//! about that step belongs where the step uses the anchor, not where another
//! step defined it. The parser is linear in the size of the text.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Where a node starts: 1-based line and column (in characters).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Mark {
    pub(crate) line: u64,
    pub(crate) column: u64,
}

impl Mark {
    fn of(m: &Marker) -> Mark {
        Mark {
            line: m.line() as u64,
            column: m.col() as u64 + 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// A scalar's text as written (quotes removed). `plain` scalars can be
    /// null (`~`, `null`, nothing); quoted ones are always strings.
    Scalar {
        text: String,
        plain: bool,
    },
    Seq(Vec<Node>),
    /// Keys in order; merge keys (`<<`) already applied.
    Map(Vec<(Node, Node)>),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub(crate) value: Value,
    pub(crate) mark: Mark,
}

impl Node {
    /// The scalar's text; `None` for a collection.
    pub(crate) fn text(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// An unquoted scalar (the only kind that can be null or a merge key).
    pub(crate) fn plain(&self) -> bool {
        matches!(self.value, Value::Scalar { plain: true, .. })
    }

    /// A null scalar: nothing, `~` or `null`, unquoted.
    pub(crate) fn is_null(&self) -> bool {
        matches!(&self.value, Value::Scalar { text, plain: true } if matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL"))
    }

    pub(crate) fn entries(&self) -> &[(Node, Node)] {
        match &self.value {
            Value::Map(m) => m,
            _ => &[],
        }
    }

    pub(crate) fn items(&self) -> &[Node] {
        match &self.value {
            Value::Seq(s) => s,
            _ => &[],
        }
    }

    /// The entry under `key` (the last, as YAML loaders keep it), with its key.
    pub(crate) fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.entries()
            .iter()
            .rev()
            .find(|(k, _)| k.text() == Some(key))
            .map(|(k, v)| (k, v))
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// Gives this node and everything under it the position `mark`.
    fn moved_to(mut self, mark: Mark) -> Node {
        self.mark = mark;
        self.value = match self.value {
            Value::Seq(items) => Value::Seq(items.into_iter().map(|n| n.moved_to(mark)).collect()),
            Value::Map(entries) => Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.moved_to(mark), v.moved_to(mark)))
                    .collect(),
            ),
            scalar => scalar,
        };
        self
    }
}

/// Why a text is not a workflow YAML can read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Invalid {
    pub(crate) line: u64,
    pub(crate) message: String,
}

/// A node under construction.
enum Open {
    Seq {
        items: Vec<Node>,
        mark: Mark,
        anchor: usize,
    },
    Map {
        entries: Vec<(Node, Node)>,
        /// Each key's first position, to find a repeated key in constant time.
        seen: HashMap<String, Mark>,
        /// The mappings `<<` names, applied when the mapping ends.
        merges: Vec<Node>,
        key: Option<Node>,
        mark: Mark,
        anchor: usize,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Open>,
    anchors: HashMap<usize, Node>,
    documents: Vec<Node>,
    problem: Option<Invalid>,
    copied: usize,
}

impl Builder {
    fn refuse(&mut self, mark: Mark, message: String) {
        if self.problem.is_none() {
            self.problem = Some(Invalid {
                line: mark.line,
                message,
            });
        }
    }

    /// A finished node goes into the collection being built, or is a document.
    fn finish(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        let mut duplicate = None;
        match self.stack.last_mut() {
            None => self.documents.push(node),
            Some(Open::Seq { items, .. }) => items.push(node),
            Some(Open::Map {
                entries,
                seen,
                merges,
                key,
                ..
            }) => match key.take() {
                None => *key = Some(node),
                Some(k) if k.text() == Some("<<") && k.plain() => merges.push(node),
                Some(k) => {
                    if let Some(text) = k.text() {
                        if let Some(first) = seen.get(text) {
                            duplicate = Some((k.mark, text.to_string(), *first));
                        } else {
                            seen.insert(text.to_string(), k.mark);
                        }
                    }
                    entries.push((k, node));
                }
            },
        }
        if let Some((at, key, first)) = duplicate {
            self.refuse(
                at,
                format!(
                    "the key `{}` appears twice in one mapping (first at line {}); GitHub refuses a workflow that repeats a key",
                    crate::escape::one_line(&key),
                    first.line
                ),
            );
        }
    }

    fn alias(&mut self, id: usize, mark: Mark) {
        let Some(node) = self.anchors.get(&id).cloned() else {
            return self.refuse(
                mark,
                "an alias names an anchor that is not defined before it".into(),
            );
        };
        self.copied += size(&node);
        if self.copied > crate::limits::ALIAS_NODES {
            return self.refuse(
                mark,
                format!(
                    "aliases expand to over {} nodes; the workflow was not linted",
                    crate::limits::ALIAS_NODES
                ),
            );
        }
        self.finish(node.moved_to(mark), 0);
    }
}

fn size(node: &Node) -> usize {
    1 + match &node.value {
        Value::Scalar { .. } => 0,
        Value::Seq(items) => items.iter().map(size).sum(),
        Value::Map(entries) => entries.iter().map(|(k, v)| size(k) + size(v)).sum(),
    }
}

/// `<<: *x` or `<<: [*x, *y]`: keys written in the mapping win, then the
/// merged mappings in order, the first that has a key giving its value.
fn merged(mut entries: Vec<(Node, Node)>, merges: Vec<Node>) -> Vec<(Node, Node)> {
    if merges.is_empty() {
        return entries;
    }
    let mut present: std::collections::HashSet<String> = entries
        .iter()
        .filter_map(|(k, _)| k.text().map(str::to_string))
        .collect();
    for source in merges {
        let sources = match source.value {
            Value::Seq(items) => items,
            _ => vec![source],
        };
        for source in sources {
            for (k, v) in source.entries().iter().cloned() {
                if k.text().is_none_or(|t| present.insert(t.to_string())) {
                    entries.push((k, v));
                }
            }
        }
    }
    entries
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, marker: Marker) {
        if self.problem.is_some() {
            return;
        }
        let mark = Mark::of(&marker);
        match event {
            Event::Scalar(text, style, anchor, _tag) => self.finish(
                Node {
                    value: Value::Scalar {
                        text,
                        plain: style == TScalarStyle::Plain,
                    },
                    mark,
                },
                anchor,
            ),
            Event::Alias(id) => self.alias(id, mark),
            Event::SequenceStart(anchor, _) => self.stack.push(Open::Seq {
                items: Vec::new(),
                mark,
                anchor,
            }),
            Event::MappingStart(anchor, _) => self.stack.push(Open::Map {
                entries: Vec::new(),
                seen: HashMap::new(),
                merges: Vec::new(),
                key: None,
                mark,
                anchor,
            }),
            Event::SequenceEnd | Event::MappingEnd => {
                let (node, anchor) = match self.stack.pop() {
                    Some(Open::Seq {
                        items,
                        mark,
                        anchor,
                    }) => (
                        Node {
                            value: Value::Seq(items),
                            mark,
                        },
                        anchor,
                    ),
                    Some(Open::Map {
                        entries,
                        merges,
                        mark,
                        anchor,
                        ..
                    }) => (
                        Node {
                            value: Value::Map(merged(entries, merges)),
                            mark,
                        },
                        anchor,
                    ),
                    None => return,
                };
                self.finish(node, anchor);
            }
            Event::DocumentStart if !self.documents.is_empty() => self.refuse(
                mark,
                "a second YAML document starts here; a workflow file holds one".into(),
            ),
            _ => {}
        }
    }
}

/// Parses a workflow's text into its one document (`None` for an empty file).
pub(crate) fn parse(text: &str) -> Result<Option<Node>, Invalid> {
    // A byte order mark is not part of the YAML; GitHub accepts it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, true) {
        let mark = Mark::of(e.marker());
        return Err(Invalid {
            line: mark.line.max(1),
            message: format!("not valid YAML: {}", crate::escape::one_line(e.info())),
        });
    }
    if let Some(problem) = builder.problem {
        return Err(problem);
    }
    Ok(builder.documents.into_iter().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Node {
        parse(text).unwrap().unwrap()
    }

    #[test]
    fn every_node_knows_its_line() {
        let d = doc(
            "jobs:\n  a:\n    steps:\n      - uses: x@v1\n        with:\n          k: 1\n      - { uses: y@v2, with: { k: 2 } }\n",
        );
        let steps = d
            .get("jobs")
            .unwrap()
            .get("a")
            .unwrap()
            .get("steps")
            .unwrap()
            .items();
        assert_eq!(steps[0].mark.line, 4);
        assert_eq!(
            steps[0]
                .get("with")
                .unwrap()
                .entry("k")
                .unwrap()
                .0
                .mark
                .line,
            6
        );
        assert_eq!(steps[1].mark.line, 7);
        assert_eq!(steps[1].get("uses").unwrap().text(), Some("y@v2"));
    }

    #[test]
    fn a_block_scalar_is_text_not_structure() {
        let d = doc("run: |\n  - uses: openai/codex-action@v1\n  echo\n");
        assert_eq!(
            d.get("run").unwrap().text(),
            Some("- uses: openai/codex-action@v1\necho\n")
        );
    }

    #[test]
    fn aliases_and_merges_take_the_position_of_their_use() {
        let d = doc("a: &s\n  uses: x\n  with: {k: 1}\nb: *s\nc:\n  <<: *s\n  uses: y\n");
        assert_eq!(d.get("a").unwrap().get("uses").unwrap().mark.line, 2);
        let b = d.get("b").unwrap();
        assert_eq!((b.mark.line, b.get("uses").unwrap().mark.line), (4, 4));
        let c = d.get("c").unwrap();
        assert_eq!(c.get("uses").unwrap().text(), Some("y"));
        assert_eq!(c.get("with").unwrap().mark.line, 6);
    }

    #[test]
    fn what_github_refuses_is_said_at_its_line() {
        let e = parse("a: 1\nb: [\n").unwrap_err();
        assert!(e.message.starts_with("not valid YAML"), "{e:?}");
        let e = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("appears twice"), "{e:?}");
        let e = parse("a: 1\n---\nb: 2\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(parse("\u{feff}name: x\n").unwrap().is_some());
        assert!(parse("").unwrap().is_none());
        let laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
        assert!(
            parse(laughs)
                .unwrap_err()
                .message
                .contains("aliases expand")
        );
    }
}
