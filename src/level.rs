//! How much a message matters, shared by every stage that says something: the
//! receipt's caveats, the workflow lint and the reports' annotations. It lives
//! apart from all of them so that none has to import another to speak.

/// Ordered from least to most serious; maps to `::notice`, `::warning` and
/// `::error` in Actions, and to the check run's annotation levels.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Notice,
    Warning,
    Failure,
}

impl Level {
    /// The workflow command: `::notice`, `::warning`, `::error`.
    pub(crate) fn command(self) -> &'static str {
        match self {
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Failure => "error",
        }
    }
}

/// Something the receipt cannot vouch for, or a fact about the bytes worth a
/// look: a notice or a warning, never a failure (failures are outcomes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Caveat {
    pub(crate) level: Level,
    pub(crate) message: String,
    /// The workspace-relative file it is about, when there is one.
    pub(crate) file: Option<String>,
    /// Said in the summary's evidence only, not as an annotation: a fact of
    /// the chosen layout that would otherwise repeat on every run.
    pub(crate) quiet: bool,
}

impl Caveat {
    pub(crate) fn warning(message: impl Into<String>) -> Caveat {
        Caveat {
            level: Level::Warning,
            message: message.into(),
            file: None,
            quiet: false,
        }
    }

    pub(crate) fn notice(message: impl Into<String>) -> Caveat {
        Caveat {
            level: Level::Notice,
            message: message.into(),
            file: None,
            quiet: false,
        }
    }

    pub(crate) fn quiet(mut self) -> Caveat {
        self.quiet = true;
        self
    }

    pub(crate) fn on(mut self, file: &str) -> Caveat {
        self.file = Some(file.to_string());
        self
    }

    pub(crate) fn on_opt(self, file: Option<&str>) -> Caveat {
        match file {
            Some(f) => self.on(f),
            None => self,
        }
    }
}
