//! The receipt file (`usage.json`): read without loss, merged, written atomically.
//!
//! Other steps own other keys of the same file (the original recipe keeps token budgets
//! there), so every key this tool does not own is kept as it is. A file that is
//! not a JSON object is refused and left untouched: overwriting it would lose
//! whatever it held.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::receipt::{OWNED_KEYS, Receipt};
use crate::workspace::{self, Location, Presence};

/// Reads the receipt file: `None` when it does not exist yet.
pub(crate) fn load(loc: &Location) -> Result<Option<Map<String, Value>>, Error> {
    match workspace::presence("usage-file", loc)? {
        Presence::Missing => return Ok(None),
        Presence::File => {}
    }
    // A receipt is a few KiB; the agent job uploads this file.
    let bytes = match crate::workspace::read_contained(
        &loc.path,
        &[&loc.path],
        crate::limits::USAGE_BYTES,
    ) {
        Ok(b) => b,
        Err(crate::workspace::Unread::TooLarge(_)) => {
            return Err(Error::in_file(
                &loc.shown,
                format!(
                    "usage file `{}` holds more than {} MiB, and a receipt is a few KiB; upload the receipt prompt-receipt wrote, or remove the file",
                    loc.shown,
                    crate::limits::USAGE_BYTES >> 20
                ),
            ));
        }
        Err(why) => return Err(Error::new(why.why(&loc.shown))),
    };
    parse(&loc.shown, &bytes).map(Some)
}

/// Parses a receipt file's bytes; anything but a JSON object is refused.
pub fn parse(shown: &str, bytes: &[u8]) -> Result<Map<String, Value>, Error> {
    let refuse = |what: String| {
        Error::in_file(
            shown,
            format!("usage file `{shown}` {what}; fix or remove it (it was left untouched)"),
        )
    };
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            refuse("is empty, not a JSON object".to_string())
        } else {
            refuse(format!(
                "is not valid JSON (line {}, column {}: {})",
                e.line(),
                e.column(),
                crate::escape::one_line(&strip_position(&e.to_string()))
            ))
        }
    })?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(refuse(format!(
            "holds {}, not a JSON object",
            crate::error::json_kind(&other)
        ))),
    }
}

fn strip_position(msg: &str) -> String {
    msg.split(" at line ").next().unwrap_or(msg).to_string()
}

/// Replaces the keys this tool owns with `ours`; every other key stays as it was.
pub fn merge(
    existing: Option<Map<String, Value>>,
    owned: &[&str],
    ours: Map<String, Value>,
) -> Map<String, Value> {
    let mut map = existing.unwrap_or_default();
    for key in owned {
        map.remove(*key);
    }
    map.extend(ours);
    map
}

/// What becomes of the keys of an existing usage file that this tool does not write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Foreign {
    /// Kept beside the receipt (`record`: the job's own file, e.g. the original
    /// recipe's token budget).
    Keep,
    /// Moved under [`CLAIMED`] (`run`: the file was uploaded by the agent
    /// job, and what it says of itself is a claim, not a verified fact).
    Claimed,
}

/// Where `run` keeps the keys an uploaded usage file brought.
pub(crate) const CLAIMED: &str = "claimed_by_upload";

/// Writes the receipt into the usage file. Returns the receipt as written.
/// (`run` writes the in-toto statement beside it once the verdict is known:
/// [`crate::report::Attestation`].)
pub(crate) fn write_receipt(
    usage: &Location,
    existing: Option<Map<String, Value>>,
    receipt: &Receipt,
    foreign: Foreign,
) -> Result<Map<String, Value>, Error> {
    let existing = match foreign {
        Foreign::Keep => existing,
        Foreign::Claimed => existing.map(|mut old| {
            let mut claimed = match old.remove(CLAIMED) {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            for (k, v) in old {
                if !OWNED_KEYS.contains(&k.as_str()) {
                    claimed.insert(k, v);
                }
            }
            let mut kept = Map::new();
            if !claimed.is_empty() {
                kept.insert(CLAIMED.to_string(), Value::Object(claimed));
            }
            kept
        }),
    };
    let merged = merge(existing, OWNED_KEYS, receipt.to_map());
    write(usage, &merged)?;
    Ok(merged)
}

/// Writes `map` as Python's `json.dumps(indent=2, sort_keys=True)` would, atomically:
/// a temporary file in the same folder, flushed, then renamed over the target.
pub(crate) fn write(loc: &Location, map: &Map<String, Value>) -> Result<(), Error> {
    let text = crate::receipt::pyjson::to_string(map);
    write_atomically(loc, text.as_bytes())
}

///
/// Not synced to the disk: the readers are the job's later steps, on the same
/// machine, which see the renamed file whole; a machine that crashes ends the
/// job, and the file with it. A sync cost 3 to 11 ms of a 30 ms `run`.
pub(crate) fn write_atomically(loc: &Location, bytes: &[u8]) -> Result<(), Error> {
    write_replacing(loc, bytes, Replace::Over)
}

/// Atomic, as [`write_atomically`]: for files derived from the receipt (the
/// in-toto statement), which can always be written again from it.
pub(crate) fn write_derived(loc: &Location, bytes: &[u8]) -> Result<(), Error> {
    write_replacing(loc, bytes, Replace::RemoveFirst)
}

/// How the new file takes the old one's place.
#[derive(Clone, Copy, PartialEq)]
enum Replace {
    /// Renamed over it: there is never a moment without the file.
    Over,
    /// The old one removed, then the new one renamed in: ext4 writes a file
    /// renamed over another to disk at once (`auto_da_alloc`), a tenth of a
    /// millisecond or more each time, and a derived file can be written again.
    RemoveFirst,
}

fn write_replacing(loc: &Location, bytes: &[u8], replace: Replace) -> Result<(), Error> {
    let dir = loc.path.parent().unwrap_or(Path::new("/"));
    let fail = |e: io::Error| Error::io("cannot write the usage file", &loc.shown, &loc.path, &e);
    fs::create_dir_all(dir).map_err(fail)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".prompt-receipt-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    fit_in(tmp.path(), dir, &loc.path).map_err(fail)?;
    if replace == Replace::RemoveFirst {
        // Whatever stops the removal stops the rename too, and is said there.
        let _ = fs::remove_file(&loc.path);
    }
    tmp.persist(&loc.path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// A temporary file is created 0600 and, in the container, owned by root. The
/// steps after ours run as the runner's user and must read the receipt (to upload
/// it as an artifact), so it gets the mode of the file it replaces (else 0644) and
/// the owner of its folder.
fn fit_in(tmp: &Path, dir: &Path, target: &Path) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mode = fs::metadata(target)
        .map(|m| m.mode() & 0o7777)
        .unwrap_or(0o644);
    fs::set_permissions(tmp, fs::Permissions::from_mode(mode))?;
    let folder = fs::metadata(dir)?;
    let me = fs::metadata(tmp)?;
    if me.uid() == 0 && (folder.uid() != 0 || folder.gid() != 0) {
        std::os::unix::fs::chown(tmp, Some(folder.uid()), Some(folder.gid()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refuses_what_is_not_an_object() {
        for (bytes, says) in [
            (&b"[1,2]"[..], "an array"),
            (b"{\"a\": ", "not valid JSON (line 1"),
            (b"", "is empty"),
            (b"  \n", "is empty"),
            (b"\"s\"", "a string"),
        ] {
            let e = parse("usage.json", bytes).unwrap_err();
            assert!(e.message().contains(says), "{e}");
            assert!(e.message().contains("left untouched"), "{e}");
            assert_eq!(e.message().lines().count(), 1);
        }
    }

    #[test]
    fn merge_keeps_foreign_keys_and_replaces_owned_ones() {
        let old = json!({"budget": {"max": 5}, "prompt_sha": "old", "validation": {"valid": true}});
        let ours = json!({"prompt_sha": "new"});
        let merged = merge(
            Some(old.as_object().unwrap().clone()),
            &["prompt_sha", "validation"],
            ours.as_object().unwrap().clone(),
        );
        assert_eq!(
            Value::Object(merged),
            json!({"budget": {"max": 5}, "prompt_sha": "new"})
        );
    }
}
