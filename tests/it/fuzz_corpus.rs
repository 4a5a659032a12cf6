//! Every committed fuzz input, replayed through the property it was found
//! with: the seed corpora and every crash turned into a regression input.

use std::fs;
use std::path::Path;

#[path = "../../fuzz/properties.rs"]
mod fuzzing;

fn replay(target: &str, property: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut count = 0;
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| property(&data));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails its property",
            path.display()
        );
        count += 1;
    }
    assert!(count > 0, "{target} has no corpus");
}

#[test]
fn review() {
    replay("review", fuzzing::review);
}

#[test]
fn rollout() {
    replay("rollout", fuzzing::rollout);
}

#[test]
fn usage_merge() {
    replay("usage_merge", fuzzing::usage_merge);
}

#[test]
fn event_payload() {
    replay("event_payload", fuzzing::event_payload);
}

#[test]
fn workflow_lint() {
    replay("workflow_lint", fuzzing::workflow_lint);
}

#[test]
fn escapers() {
    replay("escapers", fuzzing::escapers);
}
