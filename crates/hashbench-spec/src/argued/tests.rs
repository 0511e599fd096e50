use super::super::Spec;
use hashbench_methods::CATALOG;

/// The spec `text` written as `spec.toml` of a fresh folder beside
/// `readings/q.toml` holding `readings`, loaded.
fn with_readings(text: &str, readings: &str) -> (tempfile::TempDir, anyhow::Result<Spec>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("readings")).unwrap();
    std::fs::write(dir.path().join("readings/q.toml"), readings).unwrap();
    std::fs::write(dir.path().join("spec.toml"), text).unwrap();
    let spec = Spec::load(&dir.path().join("spec.toml"));
    (dir, spec)
}

const QUESTION: &str = r#"# a question argued once
default = "this"
argument = """both \
are written"""

[readings]
r = "other"
s = "a third"
"#;

fn spec_reading(extra: &str) -> String {
    format!(
        "{}\n[[readings]]\nid = \"r\"\nargued_in = \"readings/q.toml\"\nswap = {{ \"LSH\" = \"SIKH (width={{ fixed = 1.0 }})\" }}\n{extra}",
        super::super::tests::GOOD
    )
}

/// A reading that names its file plans as the reading written out in the
/// spec, its texts shown with the file's lines.
#[test]
fn a_reading_argued_in_its_file_plans_as_written_out() {
    let (_dir, spec) = with_readings(&spec_reading(""), QUESTION);
    let spec = spec.unwrap();
    let written = format!(
        "{}\n[[readings]]\nid = \"r\"\nreading = \"other\"\ndefault = \"this\"\nargument = \"both are written\"\nswap = {{ \"LSH\" = \"SIKH (width={{ fixed = 1.0 }})\" }}\n",
        super::super::tests::GOOD
    );
    let written = super::super::tests::parse(&written).unwrap();
    let plan = spec.plan("paper", &CATALOG).unwrap();
    assert_eq!(
        plan.readings,
        written.plan("paper", &CATALOG).unwrap().readings
    );
    assert_eq!(plan.readings[0].argument, "both are written");
    let shown = spec.show("paper").unwrap();
    let line = |key: &str| {
        shown
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("{shown}"))
            .to_string()
    };
    assert!(
        line("default = ").ends_with(&format!("readings{}q.toml:2", std::path::MAIN_SEPARATOR)),
        "{shown}"
    );
    assert!(line("reading = ").ends_with("q.toml:7"), "{shown}");
}

/// A reading its file does not argue, a text stated beside `argued_in`, a
/// readings file with another key or without its argument, a file outside
/// `readings/`: each refused with its place.
#[test]
fn a_reading_and_its_file_must_agree() {
    let err =
        |text: &str, readings: &str| format!("{:#}", with_readings(text, readings).1.unwrap_err());
    let e = err(
        &spec_reading("").replace("id = \"r\"\nargued", "id = \"t\"\nargued"),
        QUESTION,
    );
    assert!(
        e.contains("argues no reading `t` (it argues: r, s)") && e.contains("spec.toml:"),
        "{e}"
    );
    let e = err(&spec_reading("argument = \"again\"\n"), QUESTION);
    assert!(e.contains("`argument` is argued in readings/q.toml"), "{e}");
    let e = err(&spec_reading(""), &QUESTION.replace("default", "defualt"));
    assert!(
        e.contains("q.toml:2: `defualt`: a readings file holds"),
        "{e}"
    );
    let e = err(
        &spec_reading(""),
        &QUESTION.replace("argument = \"\"\"both \\\nare written\"\"\"", ""),
    );
    assert!(
        e.contains("q.toml: a readings file must state `argument`"),
        "{e}"
    );
    let e = err(
        &spec_reading("").replace("readings/q.toml", "q.toml"),
        QUESTION,
    );
    assert!(
        e.contains("argued_in = \"q.toml\": the file must be in the paper's readings/ folder"),
        "{e}"
    );
}
