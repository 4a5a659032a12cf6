//! SHA-256 of exact bytes, and the facts about bytes that change a hash without
//! changing how a file looks (a BOM, CRLF line endings).

use std::io::{self, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Lower-case hex SHA-256 of `bytes`, as `hashlib.sha256(b).hexdigest()` prints it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Lower-case hex SHA-256 of a file's bytes, read in binary as a stream (no
/// newline or encoding conversion, constant memory); `None` past `max` bytes,
/// found from its size before any is read, or on reading one byte past it.
pub(crate) fn sha256_file(path: &Path, max: u64) -> io::Result<Option<String>> {
    let file = crate::workspace::open_regular(path).map_err(crate::workspace::Unread::into_io)?;
    if file.metadata()?.len() > max {
        return Ok(None);
    }
    let mut file = file.take(max.saturating_add(1));
    let (mut hasher, mut read) = (Sha256::new(), 0u64);
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        read += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok((read <= max).then(|| hex::encode(hasher.finalize())))
}

/// Content blocks as the receipt canonicalizes them for a context hash,
/// `[{"text":…,"type":…},…]` (keys sorted, no whitespace, a missing member
/// `null`), written as they are read: building each block as a JSON value
/// first held some 700 bytes for each `{}` of a hostile record.
pub(crate) fn write_canonical_blocks(out: &mut impl io::Write, blocks: &[serde_json::Value]) {
    let _ = out.write_all(b"[");
    for (i, b) in blocks.iter().enumerate() {
        let _ = out.write_all(if i == 0 {
            b"{\"text\":"
        } else {
            b",{\"text\":"
        });
        let _ = serde_json::to_writer(&mut *out, &b["text"]);
        let _ = out.write_all(b",\"type\":");
        let _ = serde_json::to_writer(&mut *out, &b["type"]);
        let _ = out.write_all(b"}");
    }
    let _ = out.write_all(b"]");
}

/// A SHA-256 that bytes are written into.
#[derive(Default)]
pub(crate) struct HashWriter(pub(crate) Sha256);

impl io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl HashWriter {
    pub(crate) fn hex(self) -> String {
        hex::encode(self.0.finalize())
    }
}

/// How a text's lines end. `mixed` also covers a lone CR.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LineEndings {
    Lf,
    Crlf,
    Mixed,
    None,
}

impl LineEndings {
    pub(crate) fn of(bytes: &[u8]) -> LineEndings {
        let (mut lf, mut crlf, mut lone_cr) = (0usize, 0usize, 0usize);
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    crlf += 1;
                    i += 1;
                }
                b'\r' => lone_cr += 1,
                b'\n' => lf += 1,
                _ => {}
            }
            i += 1;
        }
        match (lf > 0, crlf > 0, lone_cr > 0) {
            (false, false, false) => LineEndings::None,
            (true, false, false) => LineEndings::Lf,
            (false, true, false) => LineEndings::Crlf,
            _ => LineEndings::Mixed,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LineEndings::Lf => "lf",
            LineEndings::Crlf => "crlf",
            LineEndings::Mixed => "mixed",
            LineEndings::None => "none",
        }
    }
}

pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

pub(crate) fn has_bom(bytes: &[u8]) -> bool {
    bytes.starts_with(UTF8_BOM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digest() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn line_endings() {
        assert_eq!(LineEndings::of(b"a\nb\n"), LineEndings::Lf);
        assert_eq!(LineEndings::of(b"a\r\nb\r\n"), LineEndings::Crlf);
        assert_eq!(LineEndings::of(b"a\r\nb\n"), LineEndings::Mixed);
        assert_eq!(LineEndings::of(b"a\rb"), LineEndings::Mixed);
        assert_eq!(LineEndings::of(b"one line"), LineEndings::None);
        assert_eq!(LineEndings::of(b""), LineEndings::None);
    }

    #[test]
    fn file_digest_equals_bytes_digest() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..700_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        assert_eq!(sha256_file(&p, 1 << 20).unwrap(), Some(sha256_hex(&data)));
    }
}
