use super::*;

fn spec(q: Count, db: Count, tr: Count, l: usize) -> SplitSpec {
    SplitSpec {
        queries: Some(q),
        database: db,
        training: tr,
        training_from: None,
        labelled: l,
        per_trial: false,
        files: None,
    }
}

fn here() -> &'static Path {
    Path::new(".")
}

#[test]
fn random_split_is_disjoint_seeded_and_nested() {
    let s = spec(Count::Items(10), rest(), Count::Items(50), 5);
    let a = s.split(100, &[], 7, here()).unwrap();
    assert_eq!(a, s.split(100, &[], 7, here()).unwrap());
    assert_ne!(a, s.split(100, &[], 8, here()).unwrap());
    assert_eq!(
        (a.queries.len(), a.database.len(), a.training.len()),
        (10, 90, 50)
    );
    assert!(a.queries.iter().all(|q| !a.database.contains(q)));
    assert!(a.training.iter().all(|t| a.database.contains(t)));
    assert!(a.labelled.iter().all(|l| a.training.contains(l)));
}

/// A fixture sorted by class: items 0..50 are class 0, 50..100 class 1, and
/// the part `train` is 0..80 (class 1 is its last 30 items).
fn sorted_parts() -> Vec<(String, Range<usize>)> {
    vec![("train".to_string(), 0..80), ("test".to_string(), 80..100)]
}

#[test]
fn counts_from_a_named_part_are_random_not_file_order() {
    let s = spec(
        Count::Named("test".into()),
        Count::Named("train".into()),
        Count::Items(20),
        10,
    );
    let a = s.split(100, &sorted_parts(), 3, here()).unwrap();
    // the first 20 (or 10) in file order would all be class 0
    assert!(a.training.iter().any(|&i| i >= 50), "{:?}", a.training);
    assert!(a.labelled.iter().any(|&i| i >= 50), "{:?}", a.labelled);
    assert!(a.training.iter().all(|&i| i < 80));
    assert!(a.labelled.iter().all(|l| a.training.contains(l)));
}

#[test]
fn a_training_count_can_come_from_its_own_part() {
    let parts = vec![
        ("base".to_string(), 0..60),
        ("learn".to_string(), 60..90),
        ("query".to_string(), 90..100),
    ];
    let mut s = spec(
        Count::Named("query".into()),
        Count::Named("base".into()),
        Count::Items(12),
        0,
    );
    s.training_from = Some("learn".into());
    let a = s.split(100, &parts, 5, here()).unwrap();
    assert_eq!(a.database, (0..60).collect::<Vec<_>>());
    assert_eq!(a.training.len(), 12);
    assert!(a.training.iter().all(|t| (60..90).contains(t)));
    // a random draw, not the part's first items
    assert_ne!(a.training, (60..72).collect::<Vec<_>>());
    // the whole part at most, never the database's items, always a count
    s.training = Count::Items(31);
    assert!(
        s.split(100, &parts, 5, here())
            .unwrap_err()
            .to_string()
            .contains("only 30")
    );
    s.training = Count::Items(5);
    s.training_from = Some("base".into());
    let e = s.split(100, &parts, 5, here()).unwrap_err().to_string();
    assert!(
        e.contains("the database and the training part `base` share"),
        "{e}"
    );
    s.training = database();
    assert!(
        s.validate()
            .unwrap_err()
            .to_string()
            .contains("training_from")
    );
    // counted queries and a "rest" database stay out of the training part
    let mut s = spec(Count::Items(10), rest(), Count::Items(12), 0);
    s.training_from = Some("learn".into());
    for seed in 0..20 {
        let a = s.split(100, &parts, seed, here()).unwrap();
        let learn = |i: &usize| (60..90).contains(i);
        assert!(!a.queries.iter().any(learn), "seed {seed}");
        assert!(!a.database.iter().any(learn), "seed {seed}");
        assert!(a.training.iter().all(learn), "seed {seed}");
    }
}

#[test]
fn counted_queries_never_overlap_a_named_database() {
    let s = spec(
        Count::Items(20),
        Count::Named("train".into()),
        database(),
        0,
    );
    for seed in 0..20 {
        let a = s.split(100, &sorted_parts(), seed, here()).unwrap();
        assert!(
            a.queries.iter().all(|&q| q >= 80),
            "seed {seed}: {:?}",
            a.queries
        );
        assert_eq!(a.database, (0..80).collect::<Vec<_>>());
    }
    let e = spec(
        Count::Items(21),
        Count::Named("train".into()),
        database(),
        0,
    )
    .split(100, &sorted_parts(), 0, here())
    .unwrap_err();
    assert!(e.to_string().contains("split.queries = 21"), "{e}");
    let e = spec(
        Count::Named("test".into()),
        Count::Named("test".into()),
        database(),
        0,
    )
    .split(100, &sorted_parts(), 0, here())
    .unwrap_err();
    assert!(e.to_string().contains("share item"), "{e}");
}

#[test]
fn named_parts_give_a_predefined_split() {
    let parts = vec![("train".to_string(), 0..6), ("test".to_string(), 6..9)];
    let s = spec(Count::Named("test".into()), rest(), database(), 0);
    let a = s.split(9, &parts, 1, here()).unwrap();
    assert_eq!(a.queries, vec![6, 7, 8]);
    assert_eq!(a.database, (0..6).collect::<Vec<_>>());
    assert_eq!(a.training, a.database);
}

#[test]
fn impossible_requests_name_the_field() {
    let e = spec(Count::Items(20), rest(), database(), 0)
        .split(10, &[], 0, here())
        .unwrap_err();
    assert!(e.to_string().contains("split.queries = 20"));
    let e = spec(Count::Items(2), rest(), database(), 9)
        .split(10, &[], 0, here())
        .unwrap_err();
    assert!(e.to_string().contains("split.labelled = 9"));
    let e = spec(Count::Named("val".into()), rest(), database(), 0)
        .split(10, &[], 0, here())
        .unwrap_err();
    assert!(e.to_string().contains("no such part"), "{e}");
}

fn files_spec(dir: &Path, files: &[(&str, &str)]) -> SplitSpec {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let has = |n: &str| files.iter().any(|(f, _)| *f == n).then(|| PathBuf::from(n));
    SplitSpec {
        queries: None,
        database: rest(),
        training: database(),
        training_from: None,
        labelled: 0,
        per_trial: false,
        files: Some(SplitFiles {
            queries: "q.txt".into(),
            database: "db.txt".into(),
            training: has("tr.txt"),
            labelled: has("l.txt"),
        }),
    }
}

#[test]
fn index_files_keep_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let s = files_spec(
        dir.path(),
        &[
            ("q.txt", "# queries\n9\n0\n"),
            ("db.txt", "5\n1\n\n2\n"),
            ("l.txt", "2\n5\n"),
        ],
    );
    let a = s.split(10, &[], 0, dir.path()).unwrap();
    assert_eq!(a.queries, vec![9, 0]);
    assert_eq!(a.database, vec![5, 1, 2]);
    assert_eq!(a.training, a.database);
    assert_eq!(a.labelled, vec![2, 5]);
}

#[test]
fn bad_index_files_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            ("q.txt", "1\n2\n"),
            ("db.txt", "3\n10\n"),
            "db.txt:2: index 10 is out of range",
        ),
        (
            ("q.txt", "1\n2\n1\n"),
            ("db.txt", "3\n"),
            "q.txt:3: index 1 repeats line 1",
        ),
        (
            ("q.txt", "1\n2\n"),
            ("db.txt", "3\n\n2\n"),
            "db.txt:3: item 2 is also a query",
        ),
        (
            ("q.txt", "1\nx\n"),
            ("db.txt", "3\n"),
            "q.txt:2: `x` is not",
        ),
    ];
    for (q, db, want) in cases {
        let s = files_spec(dir.path(), &[q, db]);
        let e = s.split(10, &[], 0, dir.path()).unwrap_err().to_string();
        assert!(e.contains(want), "{e} lacks {want}");
    }
    let s = files_spec(
        dir.path(),
        &[
            ("q.txt", "1\n"),
            ("db.txt", "3\n4\n"),
            ("tr.txt", "3\n"),
            ("l.txt", "4\n"),
        ],
    );
    let e = s.split(10, &[], 0, dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("l.txt:1: labelled item 4 is not a training item"),
        "{e}"
    );
}

/// Issue 74: index files are read inside the spec's folder: a name that
/// leaves it is refused where the spec states it, and a file linked out of it
/// is refused naming where it leads, its lines never echoed.
#[test]
fn index_files_outside_the_specs_folder_are_refused() {
    for bad in ["/etc/passwd", "../q.txt"] {
        let text = format!("queries = {bad:?}\ndatabase = \"db.txt\"\n");
        let e = toml::from_str::<SplitFiles>(&text).unwrap_err().to_string();
        assert!(e.contains("leaves its folder"), "{e}");
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret");
    std::fs::write(&secret, "secret line\n").unwrap();
    let s = files_spec(dir.path(), &[("db.txt", "3\n")]);
    std::os::unix::fs::symlink(&secret, dir.path().join("q.txt")).unwrap();
    let e = s.split(10, &[], 0, dir.path()).unwrap_err().to_string();
    assert!(e.contains("q.txt") && e.contains("outside"), "{e}");
    assert!(!e.contains("secret line"), "{e}");
}

#[test]
fn files_exclude_drawn_roles() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = files_spec(dir.path(), &[("q.txt", "1\n"), ("db.txt", "2\n")]);
    s.labelled = 3;
    assert!(
        s.validate()
            .unwrap_err()
            .to_string()
            .contains("remove database")
    );
    s.labelled = 0;
    s.queries = Some(Count::Items(1));
    assert!(
        s.validate()
            .unwrap_err()
            .to_string()
            .contains("remove `queries`")
    );
}

#[test]
fn counts_below_one_and_unknown_names_are_refused_with_what_is_allowed() {
    #[derive(Debug, Deserialize)]
    struct Table {
        #[allow(dead_code)]
        split: SplitSpec,
    }
    let read = |split: &str| {
        toml::from_str::<Table>(&format!("split = {split}"))
            .unwrap_err()
            .to_string()
    };
    for bad in [
        "{ queries = 0 }",
        "{ queries = -5 }",
        "{ queries = 5, database = 0 }",
    ] {
        let e = read(bad);
        assert!(
            e.contains("a count is at least 1") && e.contains("line 1"),
            "{e}"
        );
    }
    // a name that is neither a keyword nor a part: the keywords and parts
    let e = spec(Count::Items(2), Count::Named("all".into()), database(), 0)
        .split(10, &[], 0, here())
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"rest\"") && e.contains("it has none"), "{e}");
    // an empty named part gives no queries: refused, not an all-NaN summary
    let parts = [("test".to_string(), 0..0), ("train".to_string(), 0..10)];
    let e = spec(
        Count::Named("test".into()),
        Count::Named("train".into()),
        database(),
        0,
    )
    .split(10, &parts, 0, here())
    .unwrap_err()
    .to_string();
    assert!(e.contains("no items in the queries"), "{e}");
}

#[test]
fn counted_queries_beside_a_database_part_of_everything_say_why_none_are_left() {
    let parts = [("all".to_string(), 0..10)];
    let e = spec(Count::Items(2), Count::Named("all".into()), database(), 0)
        .split(10, &parts, 0, here())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("only 0 of the 10 items lie outside the database part \"all\"")
            && e.contains("\"rest\""),
        "{e}"
    );
}
