use std::path::Path;
use std::sync::Mutex;

use hashbench_core::BitCodes;
use hashbench_core::method::FitLog;
use indicatif::ProgressBar;

use super::codes::with_suffix;
use super::*;

#[test]
fn resume_starts_the_costliest_first_and_returns_key_order_on_any_thread_count() {
    let keys: Vec<usize> = vec![3, 9, 1, 7, 9, 2];
    let stored = |skip: usize| -> Vec<Option<String>> {
        (0..keys.len())
            .map(|i| (i == skip).then(|| "stored".to_string()))
            .collect()
    };
    // one thread: the computations run in the hint's order, ties in key order
    let started = Mutex::new(Vec::new());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (one, computed) = pool
        .install(|| {
            resume(
                &keys,
                stored(3),
                |&k| k,
                |&k| {
                    started.lock().unwrap().push(k);
                    Ok(format!("k{k}"))
                },
                &ProgressBar::hidden(),
            )
        })
        .unwrap();
    assert_eq!(started.into_inner().unwrap(), vec![9, 9, 3, 2, 1]);
    assert_eq!(computed, 5);
    assert_eq!(one, vec!["k3", "k9", "k1", "stored", "k9", "k2"]);
    // several threads: the same records in key order
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let (three, _) = pool
        .install(|| {
            resume(
                &keys,
                stored(3),
                |&k| k,
                |&k| Ok(format!("k{k}")),
                &ProgressBar::hidden(),
            )
        })
        .unwrap();
    assert_eq!(three, one);
    // the first failure in key order is the one reported
    let failed = resume(
        &keys,
        stored(usize::MAX),
        |&k| k,
        |&k| {
            if k < 5 {
                Err(anyhow::anyhow!("k{k} failed"))
            } else {
                Ok(k.to_string())
            }
        },
        &ProgressBar::hidden(),
    );
    assert_eq!(failed.unwrap_err().to_string(), "k3 failed");
}

#[test]
fn slugs_never_collide_on_case_or_sign() {
    assert_ne!(slug("LSH"), slug("lsh"));
    assert_ne!(slug("SIKH (w=-1)"), slug("SIKH (w=1)"));
    assert!(slug("SIKH (w=-1)").starts_with("sikh_w_1-"));
    // hand-computed: sha256("LSH" 0x1f) begins 6db681fc (stored run
    // folders are named by it, so a change of rule would orphan them)
    assert_eq!(slug("LSH"), "lsh-6db681fc");
    // issue 74: a 300-character label made a file name past the
    // system's 255 bytes, failing only after the fits; two long labels
    // alike in their first 64 characters stay apart
    let long = "M".repeat(300);
    let (a, b) = (slug(&format!("{long}a")), slug(&format!("{long}b")));
    assert_eq!(a.len(), 64 + 9);
    assert_ne!(a, b);
}

#[test]
fn every_committed_tuning_choice_reads_back_and_writes_the_same_json() {
    // a stored choice is reused only while its method parameters read
    // back: a change to a params type's serde would silently send every
    // search (hours for SpaH) to be rerun
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results/tuning");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        // whole, sealed, and named by the fingerprint it was searched for
        let key = path.file_stem().unwrap().to_string_lossy().into_owned();
        let rec: TunedRecord = match super::read::<TunedRecord>(&path, &key) {
            Stored::Fresh(rec) => rec,
            other => panic!("{}: {other:?}", path.display()),
        };
        let stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        let name = rec.spec["method"].as_str().unwrap();
        let spec = hashbench_methods::CATALOG
            .get(name)
            .unwrap()
            .read_stored(rec.spec.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&spec.to_json()).unwrap(),
            stored["spec"],
            "{}",
            path.display()
        );
        read += 1;
    }
    // the committed records are read, not an empty folder (MLH alone has 51)
    assert!(read > 50, "only {read} tuning records");
}

#[test]
fn codes_round_trip_and_a_fingerprint_guards_them() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("m").join("b8-t0");
    let codes = FittedCodes {
        db: BitCodes::from_fn(5, 70, |i, j| (i + j) % 3 == 0),
        queries: BitCodes::from_fn(2, 70, |i, j| (i * j) % 2 == 0),
        fit: FitRecord {
            fingerprint: "abc".into(),
            fit_seconds: 0.5,
            encode_seconds: 0.25,
            fit_cpu_seconds: Some(0.5),
            bit_weights: Some(vec![1.5; 70]),
            // a fact the fit left undefined (a mean over no items) is
            // stored, and the codes still load
            log: FitLog {
                facts: vec![("weight-mean".into(), f64::NAN), ("steps".into(), 3.0)],
                per_bit: vec![("gap".into(), vec![0.5, f64::NAN])],
                seconds: Vec::new(),
            },
            codes_sha256: String::new(),
        },
    };
    save_codes(&stem, &codes).unwrap();
    let back = load_codes(&stem, "abc", &Refusals::default()).unwrap();
    assert_eq!(back.db, codes.db);
    assert_eq!(back.queries, codes.queries);
    assert_eq!(back.fit.bit_weights, codes.fit.bit_weights);
    assert!(back.fit.log.facts[0].1.is_nan());
    assert_eq!(back.fit.log.facts[1], ("steps".to_string(), 3.0));
    assert_eq!(back.fit.log.per_bit[0].1[0], 0.5);
    assert!(back.fit.log.per_bit[0].1[1].is_nan());
    assert!(load_codes(&stem, "abd", &Refusals::default()).is_none());
    // another writer's queries beside this fit record are refused
    let other = BitCodes::from_fn(2, 70, |i, j| (i + 2 * j) % 5 == 0);
    let mut bytes = Vec::new();
    other.write_to(&mut bytes).unwrap();
    write_atomically(&with_suffix(&stem, ".queries.hbcodes"), &bytes).unwrap();
    assert!(load_codes(&stem, "abc", &Refusals::default()).is_none());
}
