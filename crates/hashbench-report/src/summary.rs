//! The Markdown summary of a run.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hashbench_eval::{MetricSpec, TiePolicy};

use super::cost::{Cost, RunSeconds};
use super::row_labels;
use super::stats::{Stat, aggregate, curve_means};
use hashbench_claims::{Reading, Verdict, rule};

use hashbench_core::method::FitCheck;
use hashbench_spec::{Plan, Study};
use hashbench_tables::{CONSTANT_BITS, IDENTICAL_CODES, ResultTables};

/// How a tie policy orders equal distances, for the summary (claims are
/// checked on the metric each names, so this says which order they see).
fn tie_text(ties: TiePolicy) -> &'static str {
    match ties {
        TiePolicy::Random => {
            "ties in the Hamming ranking follow one seeded random order of the database (independent of file order)"
        }
        TiePolicy::Index => {
            "ties in the Hamming ranking follow database index (depends on file order; for cross-checks)"
        }
        TiePolicy::Expected => "the expectation over random orders of tied items, in closed form",
    }
}

/// The processor and logical CPUs of this machine (timings depend on them).
fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown processor".to_string());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, {cpus} logical CPUs")
}

/// Centre and spread per (method, metric, x).
type Stats = BTreeMap<(String, String, usize), Stat>;

/// The Markdown summary: protocol, deviation, mean ± std tables per metric,
/// timings, and the paper-claims section.
pub fn summary_markdown(
    plan: &Plan,
    t: &ResultTables,
    split_sizes: &str,
    verdicts: &[Verdict],
    run: Option<RunSeconds>,
) -> String {
    let stats = aggregate(&t.metrics, plan.centre);
    let timing = aggregate(&t.timings, plan.centre);
    let mut s = String::new();
    write_protocol(&mut s, plan, split_sizes);
    write_value_tables(&mut s, plan, t, &stats, &timing);
    write_cost(&mut s, t, run);
    write_curve_tables(&mut s, plan, t);
    write_fit_checks(&mut s, plan, t);
    write_degenerate(&mut s, plan, t);
    let mut all = stats;
    all.extend(timing);
    write_reported(&mut s, plan, &all);
    if !verdicts.is_empty() {
        write_claims(&mut s, verdicts, &plan.readings);
    }
    s
}

/// What a run is, for its headings: the spec's title on the paper's profile;
/// on another, its own data and trials first, since the title states the
/// paper's protocol.
pub(crate) fn run_title(plan: &Plan) -> String {
    if plan.profile == hashbench_spec::PAPER_PROFILE {
        return plan.title.clone();
    }
    let plural = if plan.trials == 1 { "" } else { "s" };
    format!(
        "{}, {} trial{plural}; the paper's: {}",
        plan.dataset, plan.trials, plan.title
    )
}

/// The metric each method's hyperparameter search is scored by, against the
/// ground truth (the spec's `tuned_for`, or a method table's own), one line
/// for all the methods of one metric; nothing when no method searches.
fn write_searches(s: &mut String, methods: &[hashbench_spec::MethodEntry]) {
    let mut by_metric: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for m in methods {
        if let Some(metric) = &m.tuned_for {
            by_metric.entry(metric).or_default().push(&m.label);
        }
    }
    if by_metric.is_empty() {
        return;
    }
    let each: Vec<String> = by_metric
        .iter()
        .map(|(metric, labels)| format!("`{metric}` ({})", labels.join(", ")))
        .collect();
    let _ = writeln!(
        s,
        "- Hyperparameter searches scored by {}, against this truth",
        each.join("; ")
    );
}

/// The run's protocol: paper, spec, data, truth, trials, tie policies and
/// the deviation from the paper.
fn write_protocol(s: &mut String, plan: &Plan, split_sizes: &str) {
    if plan.profile == hashbench_spec::PAPER_PROFILE {
        let _ = writeln!(s, "# {}: {}\n", plan.id, run_title(plan));
    } else {
        let _ = writeln!(s, "# {} [{}]: {}\n", plan.id, plan.profile, run_title(plan));
    }
    let _ = writeln!(s, "- Paper: {}", plan.paper);
    let set = plan
        .method_set
        .as_ref()
        .map_or_else(String::new, |m| format!(", methods from `{}`", m.display()));
    let drawn = plan.drawn_by.as_ref().map_or_else(String::new, |f| {
        format!(
            " (a panel drawn by `{}`; `hashbench show` prints it)",
            f.display()
        )
    });
    let _ = writeln!(
        s,
        "- Spec: `{}`{drawn}{set} (sha256 {}), profile `{}`",
        plan.spec_path.display(),
        &plan.spec_sha256[..16],
        plan.profile
    );
    let _ = writeln!(s, "- Dataset: `{}`; {split_sizes}", plan.dataset);
    let _ = writeln!(s, "- Machine of the timings: {}", machine());
    match &plan.study {
        Study::Normality(n) => {
            let _ = writeln!(s, "- Normality study: `{n:?}`");
        }
        Study::Retrieval(r) => {
            let _ = writeln!(s, "- Ground truth: `{:?}`", r.ground_truth);
            write_searches(s, &r.methods);
            if let Some(k) = &plan.kernel {
                let _ = writeln!(s, "- Kernel: `{k:?}`");
            }
            let trials = if r.split.per_trial {
                format!("{} per method, each on its own split", plan.trials)
            } else {
                format!(
                    "{} per randomized method, 1 per deterministic method",
                    plan.trials
                )
            };
            let _ = writeln!(
                s,
                "- Trials: {trials}; values are {} ± sample std over trials",
                plan.centre.name()
            );
            let extra: Vec<&str> = r
                .methods
                .iter()
                .filter(|m| !m.in_paper)
                .map(|m| m.label.as_str())
                .collect();
            if !extra.is_empty() {
                let _ = writeln!(
                    s,
                    "- Not in the paper (reported beside its methods, left out of the claims' comparisons): {}",
                    extra.join(", ")
                );
            }
            for m in plan.metrics() {
                if let (Some(ties), Some(name)) = (
                    m.ties(),
                    m.scalar_names().first().or(m.curve_names().first()),
                ) {
                    let _ = writeln!(s, "- `{name}`: {}", tie_text(ties));
                }
            }
        }
    }
    match &plan.deviation {
        Some(d) => {
            let _ = writeln!(s, "\n**Deviation from the paper's protocol:** {d}");
        }
        None => {
            let _ = writeln!(s, "\nThis run follows the paper's protocol.");
        }
    }
}

/// One table per scalar metric, then per timing: rows are methods, columns
/// What the run's trials cost per method (a timings section: left out of
/// what the CLI prints, as the other timings).
fn write_cost(s: &mut String, t: &ResultTables, run: Option<RunSeconds>) {
    let cost = Cost::of(t, run);
    if cost.methods.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n## Timings: cost per method\n\nThis run: {}; {} (parallel efficiency: CPU seconds over wall seconds × threads, below 100% where threads sat idle; the longest trial fit is over the stored trials, whether this run fitted them or read them back).\n\nSeconds summed over the stored trials, costliest first: what recomputing them takes, whether this run fitted them or read them back (CPU seconds are the fitting or evaluating thread's; a fit's wall seconds are its own, so a fit that uses several threads shows less wall than CPU).\n\n{}",
        cost.run_seconds(),
        cost.scaling_sentence(),
        cost.markdown_table()
    );
}

/// the x values, cells centre ± std over trials.
fn write_value_tables(
    s: &mut String,
    plan: &Plan,
    t: &ResultTables,
    stats: &Stats,
    timing: &Stats,
) {
    let mut metrics: Vec<String> = Vec::new();
    // the identical-codes flag is listed under "Degenerate results"
    for r in t.metrics.iter().filter(|r| r.metric != IDENTICAL_CODES) {
        if !metrics.contains(&r.metric) {
            metrics.push(r.metric.clone());
        }
    }
    let mut timing_names: Vec<String> = Vec::new();
    for r in &t.timings {
        if !timing_names.contains(&r.metric) {
            timing_names.push(r.metric.clone());
        }
    }
    let axis = plan.axis.name();
    let rows = row_labels(plan, t);
    for (title, names, stats) in [
        ("Metrics", metrics, stats),
        ("Timings (seconds per trial)", timing_names, timing),
    ] {
        if names.is_empty() && title.starts_with("Timings") {
            continue;
        }
        let _ = writeln!(s, "\n## {title}");
        for metric in names {
            let _ = writeln!(s, "\n### {metric}\n");
            if let Some(m) = hashbench_eval::describe(plan.metrics(), &metric) {
                let _ = writeln!(s, "{} ({}).\n", m.description, m.direction.phrase());
            }
            let _ = write!(s, "| method |");
            plan.axis.values().iter().for_each(|b| {
                let _ = match axis {
                    "bits" => write!(s, " {b} bits |"),
                    other => write!(s, " {other} = {b} |"),
                };
            });
            let _ = write!(s, "\n|---|");
            plan.axis.values().iter().for_each(|_| s.push_str("---|"));
            s.push('\n');
            for m in &rows {
                let _ = write!(s, "| {m} |");
                for b in plan.axis.values() {
                    match stats.get(&(m.clone(), metric.clone(), *b)) {
                        Some(st) if st.n > 1 => {
                            let _ = write!(s, " {:.4} ± {:.4} |", st.centre, st.std);
                        }
                        Some(st) => {
                            let _ = write!(s, " {:.4} |", st.centre);
                        }
                        None => s.push_str(" - |"),
                    }
                }
                s.push('\n');
            }
        }
    }
}

/// The paper's reported numbers beside ours.
fn write_reported(s: &mut String, plan: &Plan, all: &Stats) {
    if plan.reported.is_empty() {
        return;
    }
    let _ = writeln!(s, "\n## Reported in the paper\n");
    if plan.deviation.is_some() {
        let _ = writeln!(
            s,
            "This profile departs from the paper's protocol (see above): the paper's numbers are shown for reference, not as a target.\n"
        );
    }
    let _ = writeln!(
        s,
        "| method | metric | {} | paper | reproduced | source |\n|---|---|---|---|---|---|",
        plan.axis.name()
    );
    for r in &plan.reported {
        let mine = all
            .get(&(r.method.clone(), r.metric.clone(), r.bits))
            .map_or("not in this run".to_string(), |st| {
                format!("{:.4}", st.centre)
            });
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {mine} | {} |",
            r.method, r.metric, r.bits, r.value, r.source
        );
    }
}

/// The check every method's codes get: no bit equal for every database item.
const CONSTANT_BITS_CHECK: FitCheck = FitCheck {
    fact: CONSTANT_BITS,
    low: 0.0,
    high: 0.0,
    says: "bits equal for every database item, which tell no item apart",
};

/// Fits whose logged facts lie outside the ranges their method declares
/// (`FitLogNames::checks`), and every method's trials with bits equal for
/// every database item (`constant-bits`): one line per method, check and
/// code length, with the trials and values; a line saying none are when
/// every fit passes.
fn write_fit_checks(s: &mut String, plan: &Plan, t: &ResultTables) {
    let mut lines: Vec<String> = Vec::new();
    for m in plan.methods() {
        // the method's own checks, then the one every method's codes get
        let own = m.spec.registration().fit_log.checks;
        for check in own.iter().chain([&CONSTANT_BITS_CHECK]) {
            for &b in plan.axis.values() {
                let flagged: Vec<String> = t
                    .metrics
                    .iter()
                    .filter(|r| {
                        r.method == m.label
                            && r.metric == check.fact
                            && r.bits == b
                            && check.flags(r.value)
                    })
                    .map(|r| format!("trial {}: {:.4}", r.trial, r.value))
                    .collect();
                if !flagged.is_empty() {
                    lines.push(format!(
                        "- **{}**, {}: {} (`{}` outside [{}, {}]; {})",
                        m.label,
                        plan.axis.point(b),
                        check.says,
                        check.fact,
                        check.low,
                        check.high,
                        flagged.join(", ")
                    ));
                }
            }
        }
    }
    let _ = writeln!(s, "\n## Fit checks\n");
    if lines.is_empty() {
        let _ = writeln!(
            s,
            "Every fit's logged facts lie in the ranges its method declares, and no bit is equal for every database item."
        );
    } else {
        let _ = writeln!(s, "{}", lines.join("\n"));
    }
}

/// Results that say nothing about the codes, listed so none passes
/// silently: trials whose database codes are all one code, metric values
/// that are undefined (NaN), and ball metrics whose radius reaches a code
/// length (the ball is the whole database: the base rate). Nothing is
/// written when there are none.
fn write_degenerate(s: &mut String, plan: &Plan, t: &ResultTables) {
    let mut lines: Vec<String> = Vec::new();
    // (method, bits, what) -> trials, in table order
    let mut flagged: Vec<((String, usize, String), Vec<usize>)> = Vec::new();
    for r in &t.metrics {
        let what = if r.metric == IDENTICAL_CODES {
            "every database item gets the same code (every ranking is one tie)".to_string()
        } else if r.value.is_nan() {
            format!("`{}` is undefined (NaN)", r.metric)
        } else {
            continue;
        };
        let key = (r.method.clone(), r.bits, what);
        match flagged.iter_mut().find(|(k, _)| *k == key) {
            Some((_, trials)) => trials.push(r.trial),
            None => flagged.push((key, vec![r.trial])),
        }
    }
    for ((method, bits, what), trials) in flagged {
        let trials: Vec<String> = trials.iter().map(usize::to_string).collect();
        lines.push(format!(
            "- **{method}**, {}: {what} (trials {})",
            plan.axis.point(bits),
            trials.join(", ")
        ));
    }
    for m in plan.metrics() {
        let Some(radius) = m.radius() else { continue };
        let reached: Vec<String> = plan
            .code_lengths()
            .into_iter()
            .filter(|&b| radius as usize >= b)
            .map(|b| b.to_string())
            .collect();
        if reached.is_empty() {
            continue;
        }
        let what = match m {
            MetricSpec::TopWithinRadius { k, .. } => format!(
                "the ball is the whole database and its top {k} are those of the plain Hamming ranking, not the base rate"
            ),
            _ => "the ball is the whole database and the value the base rate, whatever the codes"
                .to_string(),
        };
        lines.push(format!(
            "- `{}` at {} bits: radius {radius} reaches the code length, so {what}",
            m.scalar_names().join("`, `"),
            reached.join(", ")
        ));
    }
    if !lines.is_empty() {
        let _ = writeln!(s, "\n## Degenerate results\n\n{}", lines.join("\n"));
    }
}

/// Mean curves with at most 12 points, one table per (curve, code length):
/// the numbers behind sweep figures (accuracy against ε, coverage).
fn write_curve_tables(s: &mut String, plan: &Plan, t: &ResultTables) {
    let mut names: Vec<&str> = Vec::new();
    for r in &t.curves {
        if !names.contains(&r.curve.as_str()) {
            names.push(&r.curve);
        }
    }
    let mut header = false;
    let rows = row_labels(plan, t);
    for name in names {
        for &b in plan.axis.values() {
            let means = curve_means(&t.curves, name, b);
            let Some(xs) = means
                .values()
                .next()
                .map(|p| p.iter().map(|(x, _)| *x).collect::<Vec<_>>())
            else {
                continue;
            };
            if xs.len() > 12 {
                continue;
            }
            if !header {
                let _ = writeln!(s, "\n## Curves (mean over trials)");
                header = true;
            }
            let _ = writeln!(s, "\n### {name} at {b} bits\n");
            let _ = write!(s, "| method |");
            xs.iter().for_each(|x| {
                let _ = write!(s, " {x} |");
            });
            let _ = write!(s, "\n|---|");
            xs.iter().for_each(|_| s.push_str("---|"));
            s.push('\n');
            for m in &rows {
                if let Some(points) = means.get(m.as_str()) {
                    let _ = write!(s, "| {m} |");
                    for (_, y) in points {
                        let _ = write!(s, " {y:.4} |");
                    }
                    s.push('\n');
                }
            }
        }
    }
}

/// The summary without its timing section (timings differ between reruns;
/// everything else is identical).
pub fn without_timings(summary: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in summary.lines() {
        if line.starts_with("## ") {
            skipping = line.starts_with("## Timings");
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The claims section of a summary: the rule, the readings every claim is
/// judged under, then one row per claim.
fn write_claims(s: &mut String, verdicts: &[Verdict], readings: &[Reading]) {
    let _ = writeln!(s, "\n## Paper claims, judged on these numbers\n");
    let _ = writeln!(s, "{}\n", rule());
    if !readings.is_empty() {
        s.push_str("Every claim is judged under the reading it is written for (the default) and under each other reading the text allows; a verdict holds or fails only when it does so under every reading that reaches it, else it is reading-dependent.\n\n");
        for r in readings {
            let _ = writeln!(
                s,
                "- **Reading `{}`**: {} (the default: {}). {}",
                r.id,
                r.reading,
                r.default,
                r.argument.replace('\n', " ")
            );
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "| claim | paper | basis | scope | verdict | default reading | evidence | diagnosis |\n|---|---|---|---|---|---|---|---|"
    );
    for v in verdicts {
        let _ = writeln!(
            s,
            "| `{}` | \"{}\" ({}) | {} | {} | **{}** | {} | {} | {} |",
            v.id,
            v.quote.replace('|', "\\|"),
            v.source,
            v.basis.name(),
            v.scope,
            v.robust().name(),
            v.shown_outcome(),
            v.evidence.replace('|', "\\|"),
            v.shown_diagnosis().replace('|', "\\|")
        );
    }
}
