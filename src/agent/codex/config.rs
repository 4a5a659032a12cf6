//! Codex's settings that shape what the agent sees, read as Codex reads them.
//!
//! `codex-home/config.toml` first, then `-c key=value` in codex-args (later
//! ones win), then this step's own inputs, which win over both. Only the keys
//! that decide the AGENTS.md chain and the developer message are read:
//! `project_root_markers`, `project_doc_max_bytes`,
//! `project_doc_fallback_filenames` and `developer_instructions`. The file as a
//! whole is not hashed: codex-action rewrites it on every run (a proxy port).

use std::path::Path;

use toml::Value;

use crate::error::Error;

/// codex-args as codex-action splits them: a JSON array of strings when it
/// starts with `[`, else a shell-like string (quotes group, whitespace splits).
pub(crate) fn split_args(given: &str) -> Result<Vec<String>, String> {
    let given = given.trim();
    if given.starts_with('[') {
        return serde_json::from_str::<Vec<String>>(given)
            .map_err(|e| format!("starts with `[` but is not a JSON array of strings ({e})"));
    }
    shlex::split(given).ok_or_else(|| "has an unclosed quote".to_string())
}

/// The settings read, each `None` when neither the file nor codex-args set it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CodexConfig {
    pub(crate) project_root_markers: Option<Vec<String>>,
    pub(crate) project_doc_max_bytes: Option<u64>,
    pub(crate) project_doc_fallback_filenames: Option<Vec<String>>,
    pub(crate) developer_instructions: Option<String>,
    /// `[hooks]` in config.toml and `$CODEX_HOME/hooks.json`: what a hook
    /// prints reaches the model, so each is a receipt subject.
    pub(crate) hooks: Vec<crate::agent::turns::HookConfig>,
    /// Where each setting came from, for messages: `config.toml` or `codex-args`.
    pub(crate) sources: Vec<(String, &'static str)>,
}

const KEYS: [&str; 4] = [
    "project_root_markers",
    "project_doc_max_bytes",
    "project_doc_fallback_filenames",
    "developer_instructions",
];

impl CodexConfig {
    /// Reads `home/config.toml` (when there is one) and the `-c` overrides of
    /// `codex_args`. A file or an override that cannot be read is a
    /// configuration error that names it: Codex would have refused it too.
    pub(crate) fn read(
        home: Option<&Path>,
        codex_args: Option<&str>,
    ) -> Result<CodexConfig, Error> {
        let mut config = CodexConfig::default();
        if let Some(home) = home {
            let path = home.join("config.toml");
            let real_home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
            let read = |path: &Path| {
                crate::workspace::read_contained(path, &[&real_home], crate::limits::CONFIG_BYTES)
            };
            match read(&path) {
                Ok(bytes) => {
                    let text = String::from_utf8_lossy(&bytes);
                    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
                        Error::new(format!(
                            "`$CODEX_HOME/config.toml` is not valid TOML ({}); Codex would not start with it either: fix the file",
                            crate::escape::one_line(e.message())
                        ))
                    })?;
                    for key in KEYS {
                        if let Some(value) = table.get(key) {
                            config.set(key, value, "config.toml")?;
                        }
                    }
                    // The table, not the file: codex-action rewrites the file
                    // (a proxy port) on every run.
                    if let Some(hooks) = table.get("hooks") {
                        let json = serde_json::to_string(hooks).unwrap_or_default();
                        config.hooks.push(crate::agent::turns::HookConfig {
                            path: "$CODEX_HOME/config.toml#hooks".into(),
                            sha256: crate::digest::sha256_hex(json.as_bytes()),
                        });
                    }
                }
                Err(crate::workspace::Unread::Missing) => {}
                Err(why) => {
                    return Err(Error::new(format!(
                        "{}: Codex's settings cannot be checked; make it a regular file of at most {} MiB inside codex-home",
                        why.why("$CODEX_HOME/config.toml"),
                        crate::limits::CONFIG_BYTES >> 20
                    )));
                }
            }
            match read(&home.join("hooks.json")) {
                Ok(bytes) => config.hooks.insert(
                    0,
                    crate::agent::turns::HookConfig {
                        path: "$CODEX_HOME/hooks.json".into(),
                        sha256: crate::digest::sha256_hex(&bytes),
                    },
                ),
                Err(crate::workspace::Unread::Missing) => {}
                Err(why) => {
                    return Err(Error::new(format!(
                        "{}: the hooks Codex ran cannot be recorded; make it a regular file of at most {} MiB inside codex-home",
                        why.why("$CODEX_HOME/hooks.json"),
                        crate::limits::CONFIG_BYTES >> 20
                    )));
                }
            }
        }
        if let Some(args) = codex_args {
            let args = split_args(args).map_err(|why| {
                Error::new(format!(
                    "input `codex-args` {why}; give it as codex-action does: a JSON array of strings, or a shell-like string"
                ))
            })?;
            for (key, value) in overrides(&args) {
                if KEYS.contains(&key.as_str()) {
                    config.set(&key, &value, "codex-args")?;
                }
            }
        }
        Ok(config)
    }

    fn set(&mut self, key: &str, value: &Value, source: &'static str) -> Result<(), Error> {
        let wrong = |what: &str| {
            Error::new(format!(
                "`{key}` in {source} is not {what}; Codex reads it as {what}: fix the setting"
            ))
        };
        let strings = |v: &Value| -> Option<Vec<String>> {
            v.as_array()?
                .iter()
                .map(|s| s.as_str().map(str::to_string))
                .collect()
        };
        match key {
            "project_root_markers" => {
                self.project_root_markers =
                    Some(strings(value).ok_or_else(|| wrong("a list of strings"))?)
            }
            "project_doc_fallback_filenames" => {
                self.project_doc_fallback_filenames =
                    Some(strings(value).ok_or_else(|| wrong("a list of strings"))?)
            }
            "project_doc_max_bytes" => {
                self.project_doc_max_bytes = Some(
                    value
                        .as_integer()
                        .and_then(|n| u64::try_from(n).ok())
                        .ok_or_else(|| wrong("a number of bytes"))?,
                )
            }
            "developer_instructions" => {
                self.developer_instructions =
                    Some(value.as_str().ok_or_else(|| wrong("a string"))?.to_string())
            }
            _ => return Ok(()),
        }
        self.sources.retain(|(k, _)| k != key);
        self.sources.push((key.to_string(), source));
        Ok(())
    }
}

/// `-c key=value` and `--config key=value` (also `--config=key=value`) in
/// order. The value is read as TOML, else taken as a string, as Codex does.
pub(crate) fn overrides(args: &[String]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let pair = if arg == "-c" || arg == "--config" {
            i += 1;
            args.get(i).cloned()
        } else {
            arg.strip_prefix("--config=")
                .or_else(|| arg.strip_prefix("-c").filter(|rest| rest.contains('=')))
                .map(str::to_string)
        };
        i += 1;
        let Some((key, raw)) = pair.as_deref().and_then(|p| p.split_once('=')) else {
            continue;
        };
        let value = format!("v = {raw}")
            .parse::<toml::Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| Value::String(raw.to_string()));
        out.push((key.trim().to_string(), value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_args_split_as_codex_action_splits_them() {
        assert_eq!(
            split_args(r#"["--ephemeral", "-c", "x=\"a b\""]"#).unwrap(),
            vec!["--ephemeral", "-c", "x=\"a b\""]
        );
        assert_eq!(
            split_args(r#"-c developer_instructions="Be strict." --add-dir /tmp"#).unwrap(),
            vec![
                "-c",
                "developer_instructions=Be strict.",
                "--add-dir",
                "/tmp"
            ]
        );
        assert!(split_args("[1, 2]").is_err());
        assert!(split_args("-c 'unclosed").is_err());
    }

    #[test]
    fn hooks_in_codex_home_are_hashed_and_the_rest_of_the_file_is_not() {
        let home = tempfile::tempdir().unwrap();
        let hooks = "[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"echo hi\"\n";
        let write = |port: u16| {
            std::fs::write(
                home.path().join("config.toml"),
                format!("model = \"x\"\n[model_providers.p]\nbase_url = \"http://127.0.0.1:{port}/v1\"\n{hooks}"),
            )
            .unwrap()
        };
        write(1);
        std::fs::write(home.path().join("hooks.json"), "{\"hooks\": {}}").unwrap();
        let c = CodexConfig::read(Some(home.path()), None).unwrap();
        let paths: Vec<&str> = c.hooks.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(
            paths,
            ["$CODEX_HOME/hooks.json", "$CODEX_HOME/config.toml#hooks"]
        );
        assert_eq!(
            c.hooks[0].sha256,
            crate::digest::sha256_hex(b"{\"hooks\": {}}")
        );
        // codex-action rewrites the proxy port every run: the hooks' hash stays.
        write(2);
        let again = CodexConfig::read(Some(home.path()), None).unwrap();
        assert_eq!(c.hooks, again.hooks);
    }

    #[test]
    fn overrides_win_over_the_file() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.toml"),
            "model = \"x\"\nproject_root_markers = [\".projroot\"]\nproject_doc_max_bytes = 100\n[model_providers.p]\nbase_url = \"http://127.0.0.1:1/v1\"\n",
        )
        .unwrap();
        let args = r#"["-c", "project_doc_max_bytes=0", "--config=developer_instructions=Be strict.", "-c", "project_doc_fallback_filenames=[\"CLAUDE.md\"]"]"#;
        let c = CodexConfig::read(Some(home.path()), Some(args)).unwrap();
        assert_eq!(c.project_root_markers, Some(vec![".projroot".to_string()]));
        assert_eq!(c.project_doc_max_bytes, Some(0));
        assert_eq!(c.developer_instructions.as_deref(), Some("Be strict."));
        assert_eq!(
            c.project_doc_fallback_filenames,
            Some(vec!["CLAUDE.md".to_string()])
        );
        std::fs::write(
            home.path().join("config.toml"),
            "project_doc_max_bytes = \"lots\"\n",
        )
        .unwrap();
        let e = CodexConfig::read(Some(home.path()), None).unwrap_err();
        assert!(
            e.message()
                .contains("`project_doc_max_bytes` in config.toml is not a number of bytes"),
            "{e}"
        );
        std::fs::write(home.path().join("config.toml"), "not toml [").unwrap();
        assert!(CodexConfig::read(Some(home.path()), None).is_err());
        assert_eq!(
            CodexConfig::read(None, None).unwrap(),
            CodexConfig::default()
        );
    }
}
