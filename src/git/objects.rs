//! Objects at other commits (a file of the base, a folder's tree, what a
//! name resolves to), read through one `git cat-file --batch` per
//! repository, asked one object at a time.
//!
//! A run asks for a few dozen objects (the commits compared, each changed
//! instruction file on both sides, the base's schema through its folders);
//! a process for each was most of the run's git time. The one reader is
//! started with the same guards as every git call ([`super::command`]), its
//! answers are read on a thread of their own so that a git that blocks (a
//! pack file swapped for a FIFO) is stopped at the deadline, and an object
//! over [`GIT_OBJECT_BYTES`] stops it: it is never started again, and every
//! later question gets the reason.
//!
//! Paths are never handed to git: a file is found by walking the trees
//! from the commit's folder for `dir` (`<commit>:./`), so a name with a
//! newline, or one that git would read as a pathspec, is looked up as bytes.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use crate::limits::{GIT_ANSWER_LINE_BYTES, GIT_OBJECT_BYTES, GIT_TREES_KEPT_BYTES};

/// What git holds under a name.
pub(crate) struct Object {
    pub(crate) id: String,
    /// `blob`, `tree`, `commit` or `tag`.
    pub(crate) kind: String,
    pub(crate) bytes: Vec<u8>,
}

/// One entry of a tree: its mode as `ls-tree` prints it (`100644`,
/// `120000`, `040000`) and its object's id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) mode: String,
    pub(crate) id: String,
}

type Tree = HashMap<Vec<u8>, Entry>;

enum Answer {
    Found(Object),
    /// `<name> missing` (or `ambiguous`): git has no such object.
    Missing,
    TooLarge,
    Garbled,
}

pub(crate) struct Reader {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<Answer>,
    /// The deadline of the whole reader, as of any one git call.
    deadline: Instant,
    /// Why it answers no more: set once; it is never started again.
    spent: Option<String>,
    /// Trees read, by id, up to [`GIT_TREES_KEPT_BYTES`].
    trees: HashMap<String, Arc<Tree>>,
    kept: u64,
    /// The tree of `dir` at each commit asked about (`None`: not there).
    roots: HashMap<String, Option<String>>,
}

/// The reader of `dir`, started on the first question; `Err` with why it
/// cannot answer (it could not start, or it stopped).
pub(crate) fn with<T>(
    dir: &Path,
    ask: impl FnOnce(&mut Reader) -> Result<T, String>,
) -> Result<T, String> {
    type Shared = Arc<Mutex<Result<Reader, String>>>;
    static READERS: OnceLock<Mutex<HashMap<PathBuf, Shared>>> = OnceLock::new();
    let shared = {
        let mut readers = READERS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        readers
            .entry(dir.to_path_buf())
            .or_insert_with(|| Arc::new(Mutex::new(Reader::start(dir))))
            .clone()
    };
    let mut reader = shared.lock().unwrap_or_else(PoisonError::into_inner);
    match reader.as_mut() {
        Ok(reader) => ask(reader),
        Err(why) => Err(why.clone()),
    }
}

impl Reader {
    fn start(dir: &Path) -> Result<Reader, String> {
        let mut cmd = super::command(dir).map_err(|e| e.message().to_string())?;
        // Its errors are its answers (`missing`); nothing reads a stderr,
        // which would fill and block it.
        cmd.args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd
            .spawn()
            .map_err(|e| super::cannot_run(e).message().to_string())?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("git's object reader has no pipes".into());
        };
        let (tell, answers) = std::sync::mpsc::sync_channel(1);
        let read = std::thread::Builder::new()
            .name("git objects".into())
            .spawn(move || answer_each(stdout, &tell));
        if let Err(e) = read {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("cannot read git's objects: {e}"));
        }
        Ok(Reader {
            child,
            stdin,
            answers,
            deadline: Instant::now() + crate::limits::GIT_TIME,
            spent: None,
            trees: HashMap::new(),
            kept: 0,
            roots: HashMap::new(),
        })
    }

    /// The object `name` names (an id, `<rev>^{commit}`, `<commit>:./`):
    /// `Ok(None)` when git has none. `name` is ours, one line.
    pub(crate) fn ask(&mut self, name: &str) -> Result<Option<Object>, String> {
        if let Some(why) = &self.spent {
            return Err(why.clone());
        }
        if name.contains(['\n', '\0']) {
            return Ok(None);
        }
        let sent = self
            .stdin
            .write_all(format!("{name}\n").as_bytes())
            .and_then(|()| self.stdin.flush());
        if sent.is_err() {
            return Err(self.stop("git's object reader ended early".into()));
        }
        let left = self.deadline.saturating_duration_since(Instant::now());
        match self.answers.recv_timeout(left) {
            Ok(Answer::Found(object)) => Ok(Some(object)),
            Ok(Answer::Missing) => Ok(None),
            Ok(Answer::TooLarge) => Err(self.stop(format!(
                "git's answer is larger than {} MiB",
                GIT_OBJECT_BYTES >> 20
            ))),
            Ok(Answer::Garbled) | Err(RecvTimeoutError::Disconnected) => {
                Err(self.stop("git's object reader ended early".into()))
            }
            Err(RecvTimeoutError::Timeout) => Err(self.stop(format!(
                "git did not finish within {} s (something in the git folder blocks it); check the repository out afresh",
                crate::limits::GIT_TIME.as_secs()
            ))),
        }
    }

    fn stop(&mut self, why: String) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.spent = Some(why.clone());
        why
    }

    /// The entry at `path` (relative to the reader's folder, `/` between
    /// names) in `commit`'s tree; `None` when the commit has nothing there.
    pub(crate) fn entry(&mut self, commit: &str, path: &str) -> Result<Option<Entry>, String> {
        let parts: Vec<&str> = path.split('/').collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == "..")
        {
            return Ok(None);
        }
        let Some(mut tree) = self.root(commit)? else {
            return Ok(None);
        };
        let (last, folders) = parts.split_last().expect("split gives one part at least");
        for name in folders {
            let next = self
                .tree(&tree)?
                .and_then(|t| t.get(name.as_bytes()).cloned());
            match next {
                Some(e) if e.mode == "040000" => tree = e.id,
                _ => return Ok(None),
            }
        }
        Ok(self
            .tree(&tree)?
            .and_then(|t| t.get(last.as_bytes()).cloned()))
    }

    /// The bytes of blob `id`: `None` when git has no blob of that id.
    pub(crate) fn blob(&mut self, id: &str) -> Result<Option<Vec<u8>>, String> {
        if !super::is_object_id(id) || id.bytes().all(|b| b == b'0') {
            return Ok(None);
        }
        Ok(self.ask(id)?.filter(|o| o.kind == "blob").map(|o| o.bytes))
    }

    /// The tree of the reader's folder at `commit`, asked once per commit.
    fn root(&mut self, commit: &str) -> Result<Option<String>, String> {
        if let Some(known) = self.roots.get(commit) {
            return Ok(known.clone());
        }
        let id = match self.ask(&format!("{commit}:./"))? {
            Some(o) if o.kind == "tree" => {
                let id = o.id.clone();
                self.keep(o);
                Some(id)
            }
            _ => None,
        };
        self.roots.insert(commit.to_string(), id.clone());
        Ok(id)
    }

    fn tree(&mut self, id: &str) -> Result<Option<Arc<Tree>>, String> {
        if let Some(tree) = self.trees.get(id) {
            return Ok(Some(tree.clone()));
        }
        match self.ask(id)? {
            Some(o) if o.kind == "tree" => Ok(self.keep(o)),
            _ => Ok(None),
        }
    }

    /// Parses a tree and keeps it while the trees kept fit their bound.
    fn keep(&mut self, tree: Object) -> Option<Arc<Tree>> {
        let parsed = Arc::new(parse_tree(tree.id.len() / 2, &tree.bytes)?);
        let size = tree.bytes.len() as u64;
        if self.kept + size <= GIT_TREES_KEPT_BYTES {
            self.kept += size;
            self.trees.insert(tree.id, parsed.clone());
        }
        Some(parsed)
    }
}

/// A tree object's entries (`<mode> <name>\0<id>`, the id `id_len` raw
/// bytes), by name; `None` when it is not one.
fn parse_tree(id_len: usize, mut bytes: &[u8]) -> Option<Tree> {
    let mut tree = Tree::new();
    while !bytes.is_empty() {
        let space = bytes.iter().position(|b| *b == b' ')?;
        let nul = space + bytes[space..].iter().position(|b| *b == 0)?;
        let mode = std::str::from_utf8(&bytes[..space]).ok()?;
        let id = bytes.get(nul + 1..nul + 1 + id_len)?;
        tree.insert(
            bytes[space + 1..nul].to_vec(),
            Entry {
                // Trees write a folder's mode as `40000`; git prints `040000`.
                mode: format!("{mode:0>6}"),
                id: hex::encode(id),
            },
        );
        bytes = &bytes[nul + 1 + id_len..];
    }
    Some(tree)
}

/// Reads git's answers as they come, one for each name asked, until git
/// ends, says what this does not read, or answers with too large an object
/// (the asker then stops git: the rest of that object is never read).
fn answer_each(stdout: ChildStdout, tell: &SyncSender<Answer>) {
    let mut out = BufReader::with_capacity(64 << 10, stdout);
    loop {
        let mut line = Vec::new();
        match (&mut out)
            .take(GIT_ANSWER_LINE_BYTES)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let answer = answer(&mut out, &line);
        let go_on = matches!(answer, Answer::Found(_) | Answer::Missing);
        if tell.send(answer).is_err() || !go_on {
            return;
        }
    }
}

/// One answer: `<id> <kind> <size>\n<bytes>\n`, or `<name> missing\n`.
fn answer(out: &mut impl Read, line: &[u8]) -> Answer {
    let Some(line) = line.strip_suffix(b"\n") else {
        return Answer::Garbled;
    };
    let line = String::from_utf8_lossy(line);
    if line.ends_with(" missing") || line.ends_with(" ambiguous") {
        return Answer::Missing;
    }
    let fields: Vec<&str> = line.split(' ').collect();
    let [id, kind, size] = fields.as_slice() else {
        return Answer::Garbled;
    };
    let Ok(size) = size.parse::<u64>() else {
        return Answer::Garbled;
    };
    if size > GIT_OBJECT_BYTES {
        return Answer::TooLarge;
    }
    // The object and the line end after it.
    let mut bytes = vec![0; size as usize + 1];
    if out.read_exact(&mut bytes).is_err() || bytes.pop() != Some(b'\n') {
        return Answer::Garbled;
    }
    Answer::Found(Object {
        id: id.to_string(),
        kind: kind.to_string(),
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_read_by_name_its_folders_as_git_prints_them() {
        let mut raw = Vec::new();
        raw.extend_from_slice(b"100644 a.md\0");
        raw.extend_from_slice(&[0xab; 20]);
        raw.extend_from_slice(b"40000 sub\0");
        raw.extend_from_slice(&[0x01; 20]);
        raw.extend_from_slice(b"120000 new\nline\0");
        raw.extend_from_slice(&[0x02; 20]);
        let tree = parse_tree(20, &raw).unwrap();
        assert_eq!(tree[b"a.md".as_slice()].mode, "100644");
        assert_eq!(tree[b"a.md".as_slice()].id, "ab".repeat(20));
        assert_eq!(tree[b"sub".as_slice()].mode, "040000");
        assert_eq!(tree[b"new\nline".as_slice()].mode, "120000");
        // Cut short: not a tree.
        assert!(parse_tree(20, &raw[..raw.len() - 1]).is_none());
    }

    #[test]
    fn an_answer_is_its_object_or_missing_and_too_large_is_never_read() {
        let mut rest: &[u8] = b"hello\n";
        let Answer::Found(o) = answer(&mut rest, b"ce01 blob 5\n") else {
            panic!("not found");
        };
        assert_eq!((o.id.as_str(), o.kind.as_str()), ("ce01", "blob"));
        assert_eq!(o.bytes, b"hello");
        let mut none: &[u8] = b"";
        assert!(matches!(
            answer(&mut none, b"main^{commit} missing\n"),
            Answer::Missing
        ));
        let huge = format!("ce01 blob {}\n", GIT_OBJECT_BYTES + 1);
        assert!(matches!(
            answer(&mut none, huge.as_bytes()),
            Answer::TooLarge
        ));
        // Fewer bytes than it says: not read as an object.
        let mut short: &[u8] = b"hel";
        assert!(matches!(
            answer(&mut short, b"ce01 blob 5\n"),
            Answer::Garbled
        ));
    }
}
