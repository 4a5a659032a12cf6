//! Reading what was attested: an in-toto statement as `run` writes it, or
//! the Sigstore bundles `gh attestation download` writes (JSON lines, one
//! bundle a line, each a DSSE envelope whose `payload` is the statement in
//! base64). Only statements of this project's predicate type are kept; the
//! signature is not checked here (`gh attestation verify` does that).

use base64::Engine;
use serde_json::Value;

use crate::error::Error;
use crate::receipt::attest::{PREDICATE_TYPE, STATEMENT_TYPE};

/// The DSSE payload type of an in-toto statement.
const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// What a file held.
#[derive(Debug, Default)]
pub(crate) struct Attested {
    /// The statements of [`PREDICATE_TYPE`], in file order.
    pub(crate) statements: Vec<Value>,
    /// They came out of Sigstore bundles (signed, if `gh` says so).
    pub(crate) from_bundle: bool,
    /// Statements of other predicate types (SLSA provenance, an SBOM).
    pub(crate) others: usize,
}

/// Is this JSON value one of ours, a statement or a bundle of one?
pub(crate) fn kind_of(v: &Value) -> Option<&'static str> {
    if v.get("_type").and_then(Value::as_str) == Some(STATEMENT_TYPE) {
        Some("statement")
    } else if v.get("dsseEnvelope").is_some() {
        Some("bundle")
    } else {
        None
    }
}

/// Reads a statement file, a bundle (`.json`), or bundles as JSON lines
/// (`.jsonl`, as `gh attestation download` writes them).
pub(crate) fn parse(shown: &str, bytes: &[u8]) -> Result<Attested, Error> {
    let mut out = Attested::default();
    match serde_json::from_slice::<Value>(bytes) {
        Ok(whole) => take(shown, 1, whole, &mut out)?,
        Err(_) => {
            for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let v = serde_json::from_slice(line).map_err(|e| {
                    refuse(
                        shown,
                        &format!("line {}: not JSON ({})", i + 1, strip(&e.to_string())),
                    )
                })?;
                take(shown, i + 1, v, &mut out)?;
            }
        }
    }
    if out.statements.is_empty() {
        return Err(refuse(
            shown,
            &format!(
                "holds no statement of predicate type {PREDICATE_TYPE} ({} of other types)",
                out.others
            ),
        ));
    }
    Ok(out)
}

/// One JSON value: a statement, or a bundle whose envelope holds one.
fn take(shown: &str, line: usize, v: Value, out: &mut Attested) -> Result<(), Error> {
    let statement = match kind_of(&v) {
        Some("statement") => v,
        Some(_) => {
            out.from_bundle = true;
            payload(&v["dsseEnvelope"])
                .map_err(|why| refuse(shown, &format!("line {line}: `dsseEnvelope` {why}")))?
        }
        _ => {
            return Err(refuse(
                shown,
                &format!(
                    "line {line}: neither an in-toto statement (`_type` {STATEMENT_TYPE}) nor a Sigstore bundle (`dsseEnvelope`)"
                ),
            ));
        }
    };
    if statement.get("predicateType").and_then(Value::as_str) == Some(PREDICATE_TYPE) {
        check_layout(&statement).map_err(|why| refuse(shown, &format!("line {line}: {why}")))?;
        out.statements.push(statement);
    } else {
        out.others += 1;
    }
    Ok(())
}

/// The statement a DSSE envelope carries.
fn payload(envelope: &Value) -> Result<Value, String> {
    let kind = envelope["payloadType"].as_str().unwrap_or_default();
    if kind != PAYLOAD_TYPE {
        return Err(format!(
            "has `payloadType` `{}`, not {PAYLOAD_TYPE}",
            crate::escape::one_line(&crate::markdown::clip(kind, 80))
        ));
    }
    let text = envelope["payload"]
        .as_str()
        .ok_or("has no `payload` string")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("has a `payload` that is not base64 ({e})"))?;
    let statement: Value = serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "has a `payload` that is not JSON ({})",
            strip(&e.to_string())
        )
    })?;
    match kind_of(&statement) {
        Some("statement") => Ok(statement),
        _ => Err(format!(
            "has a `payload` that is not an in-toto statement (`_type` {STATEMENT_TYPE})"
        )),
    }
}

/// The fields of a statement this tool reads, with the types it reads them as.
fn check_layout(s: &Value) -> Result<(), String> {
    let subjects = s["subject"].as_array().ok_or("`subject` is not a list")?;
    for (i, sub) in subjects.iter().enumerate() {
        if sub["name"].as_str().is_none() || sub["digest"]["sha256"].as_str().is_none() {
            return Err(format!(
                "`subject[{i}]` has no `name` or no `digest.sha256` string"
            ));
        }
    }
    if !s["predicate"].is_object() {
        return Err("`predicate` is not an object".into());
    }
    Ok(())
}

fn refuse(shown: &str, why: &str) -> Error {
    Error::in_file(
        shown,
        format!(
            "statement `{shown}`: {why}; give the usage.intoto.json a run wrote, or the .jsonl `gh attestation download` wrote"
        ),
    )
}

fn strip(msg: &str) -> String {
    crate::escape::one_line(msg.split(" at line ").next().unwrap_or(msg)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ours() -> Value {
        json!({"_type": STATEMENT_TYPE, "predicateType": PREDICATE_TYPE,
               "subject": [{"name": "a", "digest": {"sha256": "00"}}], "predicate": {}})
    }

    fn bundle(statement: &Value) -> String {
        let payload = base64::engine::general_purpose::STANDARD.encode(statement.to_string());
        json!({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
               "dsseEnvelope": {"payload": payload, "payloadType": PAYLOAD_TYPE, "signatures": [{"sig": "AA=="}]}})
        .to_string()
    }

    #[test]
    fn a_statement_a_bundle_and_bundles_as_json_lines() {
        let plain = parse("s", ours().to_string().as_bytes()).unwrap();
        assert_eq!((plain.statements.len(), plain.from_bundle), (1, false));
        let mut other = ours();
        other["predicateType"] = json!("https://slsa.dev/provenance/v1");
        let lines = format!("{}\n{}\n", bundle(&other), bundle(&ours()));
        let read = parse("b.jsonl", lines.as_bytes()).unwrap();
        assert_eq!(
            (read.statements.len(), read.others, read.from_bundle),
            (1, 1, true)
        );
        assert_eq!(read.statements[0], ours());
    }

    #[test]
    fn what_is_not_one_is_one_line_naming_the_file() {
        for (bytes, says) in [
            (b"[1]".to_vec(), "neither an in-toto statement"),
            (b"{\"a\":1}\n{".to_vec(), "line 1: neither"),
            (b"{\n{\n".to_vec(), "line 1: not JSON"),
            (br#"{"dsseEnvelope": {"payloadType": "application/vnd.in-toto+json", "payload": "!!"}}"#.to_vec(), "not base64"),
            (br#"{"dsseEnvelope": {"payloadType": "text/plain", "payload": ""}}"#.to_vec(), "`payloadType` `text/plain`"),
            (b"{\"_type\": \"https://in-toto.io/Statement/v1\", \"predicateType\": \"x\"}".to_vec(), "no statement of predicate type"),
        ] {
            let e = parse("f.jsonl", &bytes).unwrap_err();
            assert!(e.message().contains(says), "{e}");
            assert!(e.message().starts_with("statement `f.jsonl`"), "{e}");
            assert_eq!(e.message().lines().count(), 1);
        }
    }
}
