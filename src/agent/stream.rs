//! An agent's record read as a stream: every byte hashed as it passes, at
//! most a cap read, one line held at a time.
//!
//! A record can be hundreds of MiB (long tool outputs); reading it whole
//! made the receipt's memory grow with it. Each reader keeps only what its
//! checks need, so memory stays flat whatever the record's size.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::workspace::Unread;

/// A record opened inside the agent home, read through a hash and a cap.
pub(crate) struct Record {
    reader: BufReader<Tally<File>>,
    max: u64,
}

/// Hashes and counts every byte read through it; fails once it has given
/// more than `max`.
struct Tally<R> {
    inner: R,
    hasher: Sha256,
    bytes: u64,
    max: u64,
    over: bool,
}

impl<R: Read> Read for Tally<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        if self.bytes > self.max {
            self.over = true;
            return Err(io::Error::other("over the cap"));
        }
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// What [`Record::line`] gives: a line (without its `\n`), or one longer
/// than the bound, whose bytes past it were passed over unkept.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    Whole,
    Long,
}

impl Record {
    /// Opens `path`, which must resolve inside `home` (the agent home) and be
    /// a regular file; reading more than `max` bytes from it fails.
    pub(crate) fn open(path: &Path, home: &Path, max: u64) -> Result<Record, String> {
        let real_home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        let file = crate::workspace::open_contained(path, &[&real_home])
            .map_err(|why| why.why(&path.display().to_string()))?;
        let tally = Tally {
            inner: file,
            hasher: Sha256::new(),
            bytes: 0,
            max,
            over: false,
        };
        Ok(Record {
            reader: BufReader::with_capacity(1 << 16, tally),
            max,
        })
    }

    /// Reads the next line into `line`, keeping at most `max` bytes of it.
    /// Blank lines are lines: the readers number them as an editor does.
    pub(crate) fn line(&mut self, line: &mut Vec<u8>, max: usize) -> io::Result<Option<Line>> {
        line.clear();
        let (mut any, mut long) = (false, false);
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            any = true;
            let (chunk, used) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            let room = max.saturating_sub(line.len());
            long |= chunk.len() > room;
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            let n = used.unwrap_or(buf.len());
            self.reader.consume(n);
            if used.is_some() {
                break;
            }
        }
        Ok(any.then_some(if long { Line::Long } else { Line::Whole }))
    }

    /// The stream itself, for a parser that reads a whole document.
    pub(crate) fn reader(&mut self) -> &mut BufReader<impl Read> {
        &mut self.reader
    }

    /// Reads what is left, unkept, so the hash covers the whole file.
    pub(crate) fn drain(&mut self) -> io::Result<()> {
        io::copy(&mut self.reader, &mut io::sink()).map(|_| ())
    }

    /// The SHA-256 of every byte read, hex.
    pub(crate) fn sha256(self) -> String {
        hex::encode(self.reader.into_inner().hasher.finalize())
    }

    /// A read error in the user's words: the cap, or what the system said.
    pub(crate) fn why(&self, path: &Path, e: &io::Error) -> String {
        let shown = path.display().to_string();
        if self.reader.get_ref().over {
            Unread::TooLarge(self.max).why(&shown)
        } else {
            format!("`{shown}` cannot be read ({e})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(text: &[u8], max: u64) -> (tempfile::TempDir, Record) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, text).unwrap();
        let r = Record::open(&path, dir.path(), max).unwrap();
        (dir, r)
    }

    #[test]
    fn lines_are_read_one_at_a_time_bounded_and_the_whole_file_hashed() {
        let text = b"ab\n\nlonger line\nlast";
        let (_d, mut r) = open(text, 1 << 20);
        let mut line = Vec::new();
        let mut got = Vec::new();
        while let Some(kind) = r.line(&mut line, 5).unwrap() {
            got.push((String::from_utf8(line.clone()).unwrap(), kind));
        }
        assert_eq!(
            got,
            [
                ("ab".to_string(), Line::Whole),
                (String::new(), Line::Whole),
                ("longe".to_string(), Line::Long),
                ("last".to_string(), Line::Whole),
            ]
        );
        assert_eq!(r.sha256(), crate::digest::sha256_hex(text));
    }

    #[test]
    fn more_than_the_cap_is_an_error_naming_it() {
        let (dir, mut r) = open(&vec![b'x'; 3 << 20], 1 << 20);
        let mut line = Vec::new();
        let e = r.line(&mut line, 1 << 30).unwrap_err();
        let why = r.why(&dir.path().join("r.jsonl"), &e);
        assert!(
            why.ends_with("holds more than 1 MiB, and is not read"),
            "{why}"
        );
    }
}
