//! The one error type: something stopped the tool from doing its job.
//!
//! A failed check (a hash that no longer matches, an invalid review) is not an
//! error: it is an outcome, reported and mapped to exit code 1. An `Error` is
//! bad input, bad configuration or an environment the tool cannot work in, and
//! always exits with code 2.

use std::fmt;
use std::path::Path;

/// Exit code when every check passed.
pub const EXIT_OK: i32 = 0;
/// Exit code when a check failed (verification, validation, budget).
pub const EXIT_CHECK_FAILED: i32 = 1;
/// Exit code for bad input, bad configuration or an unusable environment.
pub(crate) const EXIT_CONFIG: i32 = 2;

/// A one-line message that names what is wrong and what to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
    /// The workspace-relative file the error is about, for the `::error file=` annotation.
    file: Option<String>,
}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            file: None,
        }
    }

    /// An error about one file; `file` is shown to the user as it is.
    pub(crate) fn in_file(file: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            file: Some(file.into()),
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    pub fn exit_code(&self) -> i32 {
        EXIT_CONFIG
    }

    /// An I/O failure on `path`, with the usual causes turned into a fix.
    pub(crate) fn io(what: &str, shown: &str, path: &Path, err: &std::io::Error) -> Self {
        use std::io::ErrorKind::*;
        let fix = match err.kind() {
            NotFound => "check the path, relative to the workspace",
            PermissionDenied => {
                "make it readable (and its folder writable) by the container's user"
            }
            IsADirectory => "name a file, not a folder",
            NotADirectory => "a part of the path is a file, not a folder",
            _ => "check the path and the disk",
        };
        Error::in_file(
            shown,
            format!(
                "{what} `{shown}` ({}): {}; {fix}",
                path.display(),
                crate::escape::one_line(&err.to_string())
            ),
        )
    }
}

/// A JSON value's kind in words, for messages: "holds an array, not a path".
pub(crate) fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
