//! A `run:` script read as bash would run it, for the files it runs: each
//! command from where it starts (`cd`, `pushd`, `popd` and `cd -` followed),
//! the commands inside `$( )`, backticks and `bash -c`, variables the
//! workflow sets as literals expanded, and the runner's own folders known.
//!
//! It fails closed. What it cannot know without running the script is *not
//! verified*: a program or a script named through a variable or an
//! expression, a folder `cd` reaches through one, event text put into the
//! script, a tool that runs the checkout's own code (tests, build scripts,
//! dependencies' install scripts). Each file it can name is handed to the
//! runtime reach's [`Finder`], which resolves it as a hook's command is.

use std::path::PathBuf;

use crate::agent::reach::{Finder, Reach, is_assignment, replace_variable};
use crate::workspace::Workspace;

/// What a step that runs files is to the agent, in the comparison's tables.
pub(super) const STEP_KIND: &str = "agent workflow step";

/// Words that stand for what only the run knows: a command's output, or an
/// expression other than the places this reader knows.
const OUTPUT: &str = "__prompt_receipt_output__";
const EXPRESSION: &str = "__prompt_receipt_expression__";

/// Programs that run a file named by their first argument.
const INTERPRETERS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "source", ".", "python", "python3", "node", "ruby", "perl", "php",
    "deno", "tsx", "ts-node",
];

/// Programs that run the command after their own options.
const WRAPPERS: &[&str] = &[
    "sudo", "env", "timeout", "nice", "nohup", "time", "stdbuf", "command", "exec", "builtin",
    "xargs", "ionice", "chrt", "taskset",
];

/// Commands that run the checkout's own code as a whole: its tests, its build
/// scripts, its dependencies' install scripts. A manifest compared with the
/// base does not cover what they load. `*`: any use; else the subcommands
/// that do (`npm --version` runs nothing of the checkout).
const RUNS_THE_CHECKOUT: &[(&str, &[&str])] = &[
    (
        "npm",
        &[
            "ci",
            "install",
            "i",
            "add",
            "test",
            "t",
            "run",
            "run-script",
            "start",
            "exec",
            "x",
            "rebuild",
            "pack",
            "publish",
        ],
    ),
    (
        "pnpm",
        &[
            "install", "i", "add", "test", "t", "run", "start", "exec", "dlx",
        ],
    ),
    (
        "yarn",
        &["", "install", "add", "test", "run", "start", "exec", "dlx"],
    ),
    ("bun", &["install", "i", "add", "test", "run", "x"]),
    ("npx", &["*"]),
    ("bunx", &["*"]),
    ("make", &["*"]),
    ("just", &["*"]),
    ("task", &["*"]),
    (
        "cargo",
        &[
            "build", "test", "run", "check", "clippy", "bench", "install", "doc",
        ],
    ),
    (
        "go",
        &["build", "test", "run", "generate", "vet", "install"],
    ),
    ("pytest", &["*"]),
    ("tox", &["*"]),
    ("nox", &["*"]),
    ("unittest", &["*"]),
    ("pre-commit", &["*"]),
    ("mvn", &["*"]),
    ("gradle", &["*"]),
    ("gradlew", &["*"]),
    ("dotnet", &["build", "test", "run", "restore"]),
    ("bundle", &["install", "exec"]),
    ("rake", &["*"]),
    ("poetry", &["install", "run", "build"]),
    ("uv", &["run", "sync", "build"]),
    ("pipenv", &["install", "sync", "run"]),
    ("composer", &["install", "run", "run-script"]),
    ("pip", &["install"]),
    ("pip3", &["install"]),
];

/// One `run:` script's reading: where it is, what it may expand, and where
/// its commands start.
pub(super) struct Shell<'a> {
    ws: &'a Workspace,
    /// `file, job j, line n`: where the step is, for every sentence.
    at: String,
    /// The step's variables the workflow sets as literals (step, job and
    /// workflow `env`, nearest first); a variable set by an expression, or
    /// by an earlier step through `GITHUB_ENV`, is not known.
    env: Vec<(String, String)>,
    /// The composite action's folder, when the step is one of its.
    action_path: Option<PathBuf>,
    cwd: PathBuf,
    previous: Option<PathBuf>,
    pushed: Vec<PathBuf>,
    /// Where commands start is no longer known (`cd "$X"`): a relative path
    /// after it could be any file.
    lost: bool,
    pub(super) reach: Reach,
}

impl<'a> Shell<'a> {
    pub(super) fn new(
        ws: &'a Workspace,
        at: String,
        env: Vec<(String, String)>,
        cwd: PathBuf,
        action_path: Option<PathBuf>,
    ) -> Shell<'a> {
        Shell {
            ws,
            at,
            env,
            action_path,
            cwd,
            previous: None,
            pushed: Vec::new(),
            lost: false,
            reach: Reach::default(),
        }
    }

    fn unseen(&mut self, why: String) {
        let item = ("what the agent workflow runs".to_string(), why);
        if !self.reach.unseen.contains(&item) {
            self.reach.unseen.push(item);
        }
    }

    /// Every command of `script`.
    pub(super) fn script(&mut self, script: &str) {
        if let Some(why) = event_text(script) {
            self.unseen(format!(
                "a `run:` step in `{}` {why}: the pull request can choose what it runs",
                self.at
            ));
        }
        // A file bash reads before the script (`BASH_ENV`, `ENV`), and any
        // other variable whose value names a file of the checkout.
        let values: Vec<String> = self.env.iter().map(|(_, v)| v.clone()).collect();
        for value in values {
            self.file(&value);
        }
        for line in logical_lines(script)
            .into_iter()
            .take(crate::limits::SCRIPT_LINES)
        {
            self.line(&line, 0);
        }
    }

    /// One line: the commands of its substitutions first (they run before
    /// it), then its own, each as the shell splits them.
    fn line(&mut self, line: &str, depth: usize) {
        if depth > crate::limits::SCRIPT_NESTING {
            self.unseen(format!(
                "a `run:` step in `{}` nests commands more than {} deep: what the innermost run is not compared with the base",
                self.at,
                crate::limits::SCRIPT_NESTING
            ));
            return;
        }
        let line = self.expand(line);
        let (line, inner) = substitutions(&line);
        for command in inner {
            self.line(&command, depth + 1);
        }
        for command in commands(&line) {
            self.command(&command, depth);
        }
    }

    /// One simple command.
    fn command(&mut self, command: &str, depth: usize) {
        let Some(words) = shlex::split(command) else {
            self.unseen(format!(
                "a `run:` step in `{}` has quotes that do not close (`{}`): what it runs is not compared with the base",
                self.at,
                shown(command)
            ));
            return;
        };
        let words = self.program_and_arguments(&words);
        let Some(program) = words.first() else {
            return;
        };
        let name = program.rsplit('/').next().unwrap_or(program).to_string();
        if unknown(program) {
            return self.unseen(format!(
                "a `run:` step in `{}` runs a program named by a variable or an expression (`{}`): which one is known only when it runs",
                self.at,
                shown(command)
            ));
        }
        if self.directory(&name, &words[1..]) {
            return;
        }
        if matches!(name.as_str(), "bash" | "sh" | "dash" | "zsh")
            && let Some(i) = words.iter().position(|w| w == "-c")
        {
            if let Some(inner) = words.get(i + 1) {
                self.line(inner, depth + 1);
            }
            return;
        }
        if INTERPRETERS.contains(&name.as_str())
            && let Some(file) = words[1..].iter().find(|w| !w.starts_with('-'))
            && unknown(file)
        {
            return self.unseen(format!(
                "a `run:` step in `{}` runs a file named by a variable or an expression (`{}`): which one is known only when it runs",
                self.at,
                shown(command)
            ));
        }
        if let Some(runner) = runs_the_checkout(&words) {
            self.unseen(format!(
                "a `run:` step in `{}` runs `{}`, which runs the pull request's own code (its tests, build scripts or dependencies' install scripts) in the agent workflow: it can rewrite the review and the record before they are uploaded. Run it in another workflow",
                self.at,
                shown(&runner)
            ));
        }
        if self.lost && words[1..].iter().chain(&words[..1]).any(|w| relative(w)) {
            return self.unseen(format!(
                "a `run:` step in `{}` runs `{}` from a folder known only when it runs: which files it names is not compared with the base",
                self.at,
                shown(command)
            ));
        }
        let joined = shlex::try_join(words.iter().map(String::as_str)).unwrap_or_default();
        let mut f = Finder::for_steps(self.ws, &self.cwd);
        f.command(&joined, STEP_KIND, &self.at, &[]);
        self.take(f.reach);
    }

    /// The words after the variable assignments and the wrappers (`sudo`,
    /// `env`, `timeout 600`): the program and its arguments. Each value
    /// assigned is looked at as a file.
    fn program_and_arguments(&mut self, words: &[String]) -> Vec<String> {
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            if is_assignment(w) {
                let value = w.split_once('=').map_or("", |(_, v)| v).to_string();
                self.file(&value);
                i += 1;
                continue;
            }
            let name = w.rsplit('/').next().unwrap_or(w);
            if !WRAPPERS.contains(&name) {
                break;
            }
            i += 1;
            // The wrapper's own options, and the one value some take first.
            while i < words.len() && (words[i].starts_with('-') || is_assignment(&words[i])) {
                i += 1;
            }
            if matches!(name, "timeout" | "nice" | "chrt" | "taskset")
                && words
                    .get(i)
                    .is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
            {
                i += 1;
            }
        }
        words[i.min(words.len())..].to_vec()
    }

    /// `cd`, `pushd`, `popd`: where the commands after it start. `true`
    /// when `name` is one of them.
    fn directory(&mut self, name: &str, args: &[String]) -> bool {
        let target = args.iter().find(|a| !a.starts_with('-') || *a == "-");
        let to = match (name, target) {
            ("cd" | "pushd", None) => Some(PathBuf::from("/runner/home")),
            ("cd", Some(dir)) if dir == "-" => self.previous.clone(),
            ("popd", _) => self.pushed.pop(),
            ("cd" | "pushd", Some(dir)) if unknown(dir) || dir.starts_with('~') => {
                self.lost = !dir.starts_with('~') || self.lost;
                self.previous = Some(self.cwd.clone());
                if name == "pushd" {
                    self.pushed.push(self.cwd.clone());
                }
                self.cwd = PathBuf::from("/runner/home");
                return true;
            }
            ("cd" | "pushd", Some(dir)) => Some(self.cwd.join(dir)),
            _ => return false,
        };
        let Some(to) = to else {
            // `cd -` with no folder before it, `popd` with none pushed.
            self.lost = true;
            return true;
        };
        if name == "pushd" {
            self.pushed.push(self.cwd.clone());
        }
        self.previous = Some(std::mem::replace(&mut self.cwd, to));
        true
    }

    /// `${{ expr }}` and `$NAME`: the runner's folders, and the workflow's
    /// literal variables; anything else stands for what only the run knows.
    fn expand(&self, line: &str) -> String {
        let root = self.ws.root().to_string_lossy().into_owned();
        let folder = self
            .action_path
            .as_ref()
            .map(|f| f.to_string_lossy().into_owned());
        let mut out = super::places(line, &root, folder.as_deref());
        // `${{ env.NAME }}`, then any other expression.
        while let Some(i) = out.find("${{") {
            let rest = &out[i + 3..];
            let end = rest.find("}}").map_or(out.len(), |e| i + 3 + e + 2);
            let inner = out[i + 3..end.saturating_sub(2).max(i + 3)].trim();
            let value = inner
                .strip_prefix("env.")
                .and_then(|name| self.variable(name))
                .unwrap_or_else(|| EXPRESSION.to_string());
            out.replace_range(i..end, &value);
        }
        // `$NAME` and `${NAME}` the workflow sets as literals.
        for (name, value) in &self.env {
            out = out.replace(&format!("${{{name}}}"), value);
            out = replace_variable(&out, name, value);
        }
        out
    }

    fn variable(&self, name: &str) -> Option<String> {
        self.env
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    /// A word that names a file of the checkout, from where commands start.
    pub(super) fn file(&mut self, word: &str) {
        if word.is_empty() || unknown(word) {
            return;
        }
        let mut f = Finder::for_steps(self.ws, &self.cwd);
        f.command(
            &format!("true {}", shlex::try_quote(word).unwrap_or_default()),
            STEP_KIND,
            &self.at,
            &[],
        );
        self.take(f.reach);
    }

    fn take(&mut self, other: Reach) {
        for f in other.files {
            if !self.reach.files.iter().any(|g| g.path == f.path) {
                self.reach.files.push(f);
            }
        }
        for (_, why) in other.unseen {
            self.unseen(why);
        }
    }
}

/// A word whose value only the run knows: a variable, an expression, a
/// command's output.
fn unknown(word: &str) -> bool {
    word.contains('$') || word.contains(EXPRESSION) || word.contains(OUTPUT)
}

/// A word that could be a path relative to where commands start.
fn relative(word: &str) -> bool {
    !word.starts_with('-') && !word.starts_with('/') && (word.contains('/') || word.contains('.'))
}

/// The line with each `$( )` and backtick substitution replaced by a word
/// that stands for its output, and the commands inside them. Single quotes
/// keep their text.
fn substitutions(line: &str) -> (String, Vec<String>) {
    let chars: Vec<char> = line.chars().collect();
    let (mut out, mut inner) = (String::new(), Vec::new());
    let mut i = 0;
    let mut single = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            single = !single;
        }
        if !single && c == '$' && chars.get(i + 1) == Some(&'(') && chars.get(i + 2) != Some(&'(') {
            let mut depth = 0;
            let mut j = i + 1;
            while j < chars.len() {
                match chars[j] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            inner.push(chars[i + 2..j.min(chars.len())].iter().collect());
            out.push_str(OUTPUT);
            i = j + 1;
            continue;
        }
        if !single && c == '`' {
            let end = chars[i + 1..]
                .iter()
                .position(|&d| d == '`')
                .map_or(chars.len(), |p| i + 1 + p);
            inner.push(chars[i + 1..end].iter().collect());
            out.push_str(OUTPUT);
            i = end + 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    (out, inner)
}

/// A script's lines, with `\`-continued lines joined and comments dropped.
pub(super) fn logical_lines(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in script.lines() {
        let trimmed = line.trim_start();
        if current.is_empty() && trimmed.starts_with('#') {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(head) => {
                current.push_str(head);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                out.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The commands of one line, split at the shell's separators (`;`, `&&`,
/// `||`, `|`, `&`); quotes are kept together.
pub(super) fn commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, ';' | '|' | '&') => {
                if chars.peek().is_some_and(|n| *n == c) {
                    chars.next();
                }
                out.push(std::mem::take(&mut current));
            }
            (None, c) => current.push(c),
        }
    }
    out.push(current);
    out.into_iter()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// The command (`npm test`), when it runs the checkout's own code as a whole.
/// `python -m X` is `X`; `npm install` of registry packages into a folder
/// outside the checkout (`--prefix "$RUNNER_TEMP/x" pkg@1.0`, `-g pkg`) runs
/// none of the checkout's.
pub(super) fn runs_the_checkout(words: &[String]) -> Option<String> {
    let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
    let program = *words.first()?;
    let mut name = program.rsplit('/').next().unwrap_or(program);
    if matches!(name, "python" | "python3") {
        let m = words.iter().position(|w| *w == "-m")?;
        name = words.get(m + 1)?;
        words = words[m + 1..].to_vec();
    }
    let (_, subs) = RUNS_THE_CHECKOUT.iter().find(|(p, _)| *p == name)?;
    let args = &words[1..];
    if matches!(name, "pip" | "pip3") || (name == "uv" && args.first() == Some(&"pip")) {
        let installs_checkout = args.iter().any(|w| {
            *w == "." || w.starts_with("./") || *w == "-e" || *w == "-r" || w.ends_with(".txt")
        });
        return installs_checkout.then(|| format!("{name} install"));
    }
    if subs.contains(&"*") {
        return Some(name.to_string());
    }
    // The subcommand is the first word a package manager takes as one:
    // options and their values come before it (`npm --prefix web ci`).
    let sub = args
        .iter()
        .find(|w| subs.contains(w))
        .copied()
        .or_else(|| {
            (args.iter().all(|w| w.starts_with('-')) && subs.contains(&"")).then_some("")
        })?;
    if matches!(sub, "install" | "i" | "add") && installs_from_the_registry(args) {
        return None;
    }
    Some(if sub.is_empty() {
        name.to_string()
    } else {
        format!("{name} {sub}")
    })
}

/// `npm install --prefix /runner/temp/x pkg@1.0` or `npm i -g pkg`: named
/// packages from the registry, into a folder outside the checkout.
fn installs_from_the_registry(args: &[&str]) -> bool {
    let global = args.iter().any(|a| matches!(*a, "-g" | "--global"));
    let prefix = args
        .iter()
        .position(|a| *a == "--prefix")
        .and_then(|i| args.get(i + 1))
        .or_else(|| {
            args.iter()
                .find_map(|a| a.strip_prefix("--prefix=").as_ref().map(|_| a))
        })
        .is_some_and(|p| p.trim_start_matches("--prefix=").starts_with('/'));
    // What is left once options and the values they take are set aside.
    let mut packages: Vec<&str> = Vec::new();
    let mut value_next = false;
    for a in args {
        if std::mem::take(&mut value_next) {
            continue;
        }
        if matches!(
            *a,
            "--prefix" | "--cache" | "--userconfig" | "--registry" | "--tag"
        ) {
            value_next = true;
        } else if !a.starts_with('-') && !matches!(*a, "install" | "i" | "add") {
            packages.push(a);
        }
    }
    let named = !packages.is_empty()
        && packages.iter().all(|p| {
            !p.starts_with('.')
                && !p.starts_with('/')
                && !p.contains(":/")
                && !p.starts_with("file:")
        });
    (global || prefix) && named
}

/// Event text a script interpolates, which the pull request's author writes
/// (its title, its branch's name, a comment): the shell runs it.
pub(super) fn event_text(script: &str) -> Option<&'static str> {
    let mut rest = script;
    while let Some(i) = rest.find("${{") {
        let expr = &rest[i + 3..];
        let end = expr.find("}}").unwrap_or(expr.len());
        let inner = expr[..end].trim();
        if inner.contains("github.event.") || inner.contains("github.head_ref") {
            return Some(
                "puts event text into its script (`${{ github.event... }}`), which the shell runs as written",
            );
        }
        rest = &expr[end..];
    }
    None
}

/// Untrusted text for a sentence: one line, clipped, no backticks.
pub(super) fn shown(text: &str) -> String {
    crate::escape::one_line(&crate::markdown::clip(text, 120)).replace('`', "'")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        shlex::split(s).unwrap()
    }

    fn reading(files: &[&str], env: &[(&str, &str)], script: &str) -> (Vec<String>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut sh = Shell::new(
            &ws,
            "w.yml, job j, line 1".into(),
            env,
            ws.root().to_path_buf(),
            None,
        );
        sh.script(script);
        let files = sh.reach.files.iter().map(|f| f.path.clone()).collect();
        let unseen = sh.reach.unseen.iter().map(|(_, w)| w.clone()).collect();
        (files, unseen)
    }

    #[test]
    fn commands_split_as_the_shell_splits_them() {
        assert_eq!(
            commands("a 'x;y' && b | c; d || e &"),
            ["a 'x;y'", "b", "c", "d", "e"]
        );
        assert_eq!(
            substitutions("echo \"$(cat a.txt)\" `sh b.sh` '$(no)'"),
            (
                format!("echo \"{OUTPUT}\" {OUTPUT} '$(no)'"),
                vec!["cat a.txt".to_string(), "sh b.sh".to_string()]
            )
        );
    }

    #[test]
    fn the_checkouts_own_code_is_told_from_a_registry_install() {
        for (cmd, said) in [
            ("npm ci", Some("npm ci")),
            ("npm --prefix web ci", Some("npm ci")),
            ("npm --version", None),
            ("yarn", Some("yarn")),
            ("go version", None),
            ("python -m pytest -q", Some("pytest")),
            (
                "python3 -m pip install -r requirements.txt",
                Some("pip install"),
            ),
            ("pip install ruff==0.6", None),
            ("pre-commit run --all-files", Some("pre-commit")),
            (
                "npm install --no-audit --prefix /runner/temp/copilot @github/copilot@1.0.102",
                None,
            ),
            ("npm i -g @openai/codex@0.169.0", None),
            ("npm install", Some("npm install")),
            ("npm install ./local-pkg", Some("npm install")),
        ] {
            assert_eq!(runs_the_checkout(&words(cmd)).as_deref(), said, "{cmd}");
        }
    }

    #[test]
    fn what_a_script_runs_is_found_and_what_it_hides_is_said() {
        let files = [
            "scripts/setup.sh",
            "scripts/env.sh",
            "tools/gen.sh",
            "run.sh",
            "a.txt",
        ];
        // Variables the workflow sets as literals, `bash -c`, `cd -`, pushd
        // and popd, a file bash reads first, a substitution's own command.
        let (found, unseen) = reading(
            &files,
            &[
                ("SETUP", "scripts/setup.sh"),
                ("BASH_ENV", "./scripts/env.sh"),
            ],
            "bash \"$SETUP\"\nbash -c \"true; ./run.sh\"\ncd tools && ./gen.sh && cd - && ./run.sh\npushd tools\npopd\necho \"$(cat a.txt)\"",
        );
        assert!(unseen.is_empty(), "{unseen:#?}");
        for f in [
            "scripts/setup.sh",
            "scripts/env.sh",
            "tools/gen.sh",
            "run.sh",
            "a.txt",
        ] {
            assert!(found.contains(&f.to_string()), "{f}: {found:?}");
        }
        // What only the run knows.
        for (script, said) in [
            ("bash \"$UNSET\"", "runs a file named by a variable"),
            ("$TOOL --fast", "runs a program named by a variable"),
            (
                "bash ${{ steps.a.outputs.path }}",
                "runs a file named by a variable",
            ),
            ("$(cat which) --go", "runs a program named by a variable"),
            (
                "cd \"$DIR\" && ./setup.sh",
                "from a folder known only when it runs",
            ),
            ("sudo npm ci", "runs `npm ci`"),
            ("timeout 600 make setup", "runs `make`"),
            (
                "echo ${{ github.event.pull_request.title }}",
                "puts event text into its script",
            ),
        ] {
            let (_, unseen) = reading(&files, &[], script);
            assert!(
                unseen.iter().any(|w| w.contains(said)),
                "{script}: {unseen:#?}"
            );
        }
        // Harmless variables and outputs stay quiet.
        let (_, unseen) = reading(
            &files,
            &[],
            "echo \"x=$y\" >> \"$GITHUB_OUTPUT\"\nmkdir -p \"$RUNNER_TEMP/x\"\n\"$RUNNER_TEMP/copilot/node_modules/.bin/copilot\" -p \"$(cat a.txt)\" --model \"$MODEL\"",
        );
        assert!(unseen.is_empty(), "{unseen:#?}");
    }
}
