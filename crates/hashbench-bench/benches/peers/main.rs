//! `just bench-peers`: each inner solver of the long fits against its best
//! public peer on the same problem, in one run, on one thread.
//!
//! The problems are generated here with constant seeds (SIFT10K's learning
//! vectors where a data root holds them) and written to a temporary folder;
//! `scripts/peers-bench.py`, run by the Python given with `--python` (one with
//! the peers from PyPI: SPAMS, scikit-learn, LIBLINEAR, SciPy), solves them
//! at a ladder of each peer's stopping settings, its defaults among them, and
//! writes every solution back. hashbench is timed here on the same data, and
//! every solution, ours and the peers', is judged by one optimality measure
//! computed here (a KKT residual, a duality gap, an eigen-residual). A peer
//! is compared at the fastest of its settings that reaches hashbench's
//! optimality (or at its best, flagged, when none does); the ratio is its
//! time over ours. LAMP's reduced QPs meet clarabel in this process; MLH's
//! epoch meets the authors' MATLAB code under Octave when `MLH_DIR` names a
//! folder holding it. Timings are medians of three runs after a warm-up;
//! everything is written to `results/bench/peers.json`. `--only KEY,...`
//! runs those problems alone (keys as printed in the file).

mod encw;
mod exchange;
mod fixed_work;
mod lamp;
mod sift;
mod sparse_coding;

use std::path::{Path, PathBuf};

use exchange::{Manifest, Solution};

/// Timed runs after the warm-up (ours and the peers').
const RUNS: usize = 3;

/// Optimality this close to zero is rounding: a peer there has reached ours.
const ROUNDING: f64 = 1e-11;

/// hashbench's solve of a problem.
pub(crate) struct Ours {
    pub(crate) seconds: f64,
    pub(crate) optimality: Option<f64>,
    pub(crate) setting: String,
}

/// One peer at one of its settings, judged.
#[derive(Clone)]
pub(crate) struct Rung {
    pub(crate) peer: String,
    pub(crate) setting: String,
    pub(crate) default: bool,
    pub(crate) seconds: f64,
    pub(crate) optimality: Option<f64>,
}

/// One solver's problem, solved by hashbench here and by its peers.
pub(crate) trait Problem {
    /// The problem's key in the manifest and in the peers' output.
    fn key(&self) -> &'static str;
    /// What is solved, on what, as printed.
    fn title(&self) -> String;
    /// What the optimality number is (lower is better); `None` where both
    /// sides do a fixed amount of work (an epoch).
    fn measure(&self) -> Option<&'static str>;
    /// Writes what the Python peers read (nothing for in-process peers).
    fn write(&self, manifest: &mut Manifest);
    /// hashbench's solve, timed, and its optimality.
    fn ours(&self) -> Ours;
    /// The optimality of a peer's solution (`None` for fixed work).
    fn judge(&self, solution: &Solution) -> Option<f64>;
    /// Peers run in this process (clarabel, Octave), already judged.
    fn local_peers(&self) -> Vec<Rung> {
        Vec::new()
    }
    /// What differs between the two sides' problems, if anything.
    fn note(&self) -> &'static str {
        ""
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let python = args
        .windows(2)
        .find(|w| w[0] == "--python")
        .map(|w| PathBuf::from(&w[1]))
        .expect("usage: cargo bench --bench peers -- --python PATH (a Python with the peers)");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    let dir = tempfile::tempdir().expect("temporary folder");
    // `--only KEY[,KEY]`: those problems alone (e.g. to profile one)
    let only: Option<Vec<String>> = args
        .windows(2)
        .find(|w| w[0] == "--only")
        .map(|w| w[1].split(',').map(str::to_string).collect());
    let mut problems: Vec<Box<dyn Problem + Sync>> = Vec::new();
    problems.extend(sparse_coding::problems());
    problems.extend(sift::problems());
    problems.extend(encw::problems());
    problems.extend(fixed_work::problems());
    problems.push(Box::new(lamp::ReducedQps::new()));
    problems.retain(|p| {
        only.as_ref()
            .is_none_or(|keys| keys.iter().any(|k| k == p.key()))
    });
    let mut manifest = Manifest::new(dir.path());
    for p in &problems {
        p.write(&mut manifest);
    }
    manifest.finish();
    let keys: Vec<&str> = problems.iter().map(|p| p.key()).collect();
    let peers = hashbench_bench::script_json(
        &python,
        "peers-bench.py",
        &[
            dir.path().display().to_string(),
            RUNS.to_string(),
            keys.join(","),
        ],
    );
    let rows: Vec<serde_json::Value> = problems
        .iter()
        .map(|p| {
            let ours = pool.install(|| p.ours());
            let mut rungs = p.local_peers();
            if let Some(entries) = peers["results"][p.key()].as_array() {
                rungs.extend(entries.iter().map(|e| judged(p.as_ref(), dir.path(), e)));
            }
            let comparisons = compare(&ours, &rungs);
            print_problem(p.as_ref(), &ours, &comparisons);
            row(p.as_ref(), &ours, &rungs, &comparisons)
        })
        .collect();
    let out = hashbench_bench::workspace_root().join("results/bench/peers.json");
    std::fs::create_dir_all(out.parent().expect("parent")).expect("create results/bench");
    let report = serde_json::json!({
        "threads": 1,
        "runs": RUNS,
        "rounding": ROUNDING,
        "versions": peers["versions"],
        "problems": rows,
    });
    std::fs::write(&out, serde_json::to_string_pretty(&report).expect("json"))
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("written: {}", out.display());
}

/// A Python peer's rung, its solution judged.
fn judged(p: &(dyn Problem + Sync), dir: &Path, entry: &serde_json::Value) -> Rung {
    let solution = Solution::read(dir, &entry["solution"]);
    Rung {
        peer: entry["peer"].as_str().expect("peer").to_string(),
        setting: entry["setting"].as_str().expect("setting").to_string(),
        default: entry["default"].as_bool().expect("default"),
        seconds: entry["seconds"].as_f64().expect("seconds"),
        optimality: p.judge(&solution),
    }
}

/// One peer against hashbench: at its defaults, and at the fastest setting
/// that reaches hashbench's optimality (else its best, `reached` false).
struct Comparison {
    peer: String,
    default: Rung,
    matched: Rung,
    reached: bool,
}

impl Comparison {
    /// The peer's time over ours at the matched setting (above 1: we are faster).
    fn ratio(&self, ours: &Ours) -> f64 {
        self.matched.seconds / ours.seconds
    }
}

fn compare(ours: &Ours, rungs: &[Rung]) -> Vec<Comparison> {
    let mut names: Vec<&str> = rungs.iter().map(|r| r.peer.as_str()).collect();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let own: Vec<&Rung> = rungs.iter().filter(|r| r.peer == name).collect();
            let default = (*own.iter().find(|r| r.default).unwrap_or(&own[0])).clone();
            let reaches = |r: &&&Rung| match (r.optimality, ours.optimality) {
                (Some(theirs), Some(target)) => theirs <= target.max(ROUNDING),
                _ => true,
            };
            let fastest = own
                .iter()
                .filter(reaches)
                .min_by(|a, b| a.seconds.total_cmp(&b.seconds));
            let best = || {
                *own.iter()
                    .min_by(|a, b| {
                        let o = |r: &Rung| r.optimality.unwrap_or(0.0);
                        o(a).total_cmp(&o(b))
                    })
                    .expect("a rung")
            };
            Comparison {
                peer: name.to_string(),
                default,
                reached: fastest.is_some(),
                matched: (*fastest.copied().unwrap_or_else(best)).clone(),
            }
        })
        .collect()
}

fn optimality_text(o: Option<f64>) -> String {
    o.map_or_else(|| "fixed work".to_string(), |v| format!("{v:.1e}"))
}

fn print_problem(p: &(dyn Problem + Sync), ours: &Ours, comparisons: &[Comparison]) {
    println!("{}", p.title());
    if let Some(measure) = p.measure() {
        println!("  optimality: {measure}");
    }
    if !p.note().is_empty() {
        println!("  note: {}", p.note());
    }
    println!(
        "  hashbench ({}): {:.4} s, optimality {}",
        ours.setting,
        ours.seconds,
        optimality_text(ours.optimality)
    );
    for c in comparisons {
        if ours.optimality.is_none() {
            // a fixed amount of work on both sides: one time each
            println!(
                "  {} ({}): {:.4} s: {:.2}x hashbench's time",
                c.peer,
                c.default.setting,
                c.default.seconds,
                c.ratio(ours)
            );
            continue;
        }
        println!(
            "  {}: default ({}) {:.4} s, optimality {}; {} ({}) {:.4} s, optimality {}: \
             {:.2}x hashbench's time",
            c.peer,
            c.default.setting,
            c.default.seconds,
            optimality_text(c.default.optimality),
            if c.reached {
                "at hashbench's optimality"
            } else {
                "NEVER at hashbench's optimality, best"
            },
            c.matched.setting,
            c.matched.seconds,
            optimality_text(c.matched.optimality),
            c.ratio(ours),
        );
    }
}

fn rung_json(r: &Rung) -> serde_json::Value {
    serde_json::json!({
        "peer": r.peer,
        "setting": r.setting,
        "default": r.default,
        "seconds": r.seconds,
        "optimality": r.optimality,
    })
}

fn row(
    p: &(dyn Problem + Sync),
    ours: &Ours,
    rungs: &[Rung],
    comparisons: &[Comparison],
) -> serde_json::Value {
    serde_json::json!({
        "problem": p.key(),
        "title": p.title(),
        "measure": p.measure(),
        "note": p.note(),
        "hashbench": {
            "setting": ours.setting,
            "seconds": ours.seconds,
            "optimality": ours.optimality,
        },
        "peers": comparisons.iter().map(|c| serde_json::json!({
            "peer": c.peer,
            "default": rung_json(&c.default),
            "matched": rung_json(&c.matched),
            "reached": c.reached,
            "peer_time_over_hashbench": c.ratio(ours),
        })).collect::<Vec<_>>(),
        "rungs": rungs.iter().map(rung_json).collect::<Vec<_>>(),
    })
}

/// Median seconds of `RUNS` calls after one warm-up, and the last result.
pub(crate) fn timed<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut last = f();
    let seconds = hashbench_bench::median_seconds(RUNS, || last = f());
    (seconds, last)
}
