//! The report as Markdown (`results/REPORT.md`), links relative to the
//! results folder.

use std::fmt::Write as _;

use super::*;

/// `text` for a Markdown table cell (pipes escaped, one line).
pub(super) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The report as Markdown (links relative to the results folder).
pub fn markdown(report: &Report) -> String {
    let mut s = String::from("# hashbench reproduction report\n\n");
    write_overview(&mut s, report);
    for p in &report.papers {
        let _ = writeln!(s, "\n## {}: {}\n", p.key, p.citation);
        let _ = writeln!(s, "{}", p.tally().sentence(p.runs.len()));
        write_readings(&mut s, p);
        for r in &p.runs {
            write_run(&mut s, r);
        }
        if !p.skipped.is_empty() {
            s.push_str("\nNot run:\n\n");
            for k in &p.skipped {
                let _ = writeln!(s, "- {}: {}", k.id, k.reason);
            }
        }
    }
    s
}

/// The opening: the rule, the totals per paper and the cost per paper.
fn write_overview(s: &mut String, report: &Report) {
    s.push_str(
        "Claims checked on the stored runs (`hashbench report`; `just run-all` ends with it).\n\n",
    );
    let _ = writeln!(s, "{}\n", hashbench_claims::rule());
    let _ = writeln!(
        s,
        "{TOTALS_NOTE}\n\n| {} |\n|{}",
        TOTALS_HEADER.join(" | "),
        "---|".repeat(TOTALS_HEADER.len())
    );
    for p in report.papers.iter().filter(|p| !p.is_cross_check()) {
        let _ = writeln!(s, "| {} | {} |", p.key, p.totals().join(" | "));
    }
    let _ = writeln!(
        s,
        "\nCost per paper. {COST_NOTE}\n\n| {} |\n|{}",
        COST_HEADER.join(" | "),
        "---|".repeat(COST_HEADER.len())
    );
    for p in &report.papers {
        let _ = writeln!(s, "| {} | {} |", p.key, cost_cells(p).join(" | "));
    }
}

/// A paper's readings that can decide its verdicts, with the statements
/// each moves (arguments in the specs' `[[readings]]`).
fn write_readings(s: &mut String, p: &PaperSection) {
    let readings = p.readings();
    if readings.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\nReadings that decide verdicts (each argued in its spec's `[[readings]]`):\n\n| {} |\n|{}",
        READINGS_HEADER.join(" | "),
        "---|".repeat(READINGS_HEADER.len())
    );
    for (r, moved) in readings {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} |",
            r.id,
            cell(&r.default),
            cell(&r.reading),
            moved
        );
    }
}

/// One run: its heading, deviation, files, cost, verdicts, the paper's
/// numbers beside ours, and its figures.
fn write_run(s: &mut String, r: &RunEntry) {
    let _ = writeln!(s, "\n### {} [{}]: {}\n", r.id, r.profile, r.title);
    if r.stale {
        let _ = writeln!(s, "**Stale:** {STALE}.\n");
    }
    match &r.deviation {
        Some(d) => {
            let _ = writeln!(s, "Deviation: {d}\n");
        }
        None => s.push_str("The paper's protocol.\n\n"),
    }
    let links: Vec<String> = r.files.iter().map(|f| format!("[{f}]({f})")).collect();
    let _ = writeln!(s, "Files: {}\n", links.join(", "));
    let _ = writeln!(s, "Cost: {}.\n", cell(&run_cost(&r.cost)));
    if !r.verdicts.is_empty() {
        s.push_str("| claim | source | basis | verdict | under each reading | diagnosis |\n|---|---|---|---|---|---|\n");
        for v in &r.verdicts {
            let _ = writeln!(
                s,
                "| `{}` {} | {} | {} | **{}** | {} | {} |",
                v.id,
                v.scope,
                cell(&v.source),
                v.basis.name(),
                cell(&shown_verdict(v)),
                cell(&under_readings(v)),
                cell(&diagnosis_gist(v))
            );
        }
        s.push('\n');
    }
    if !r.reported.is_empty() {
        s.push_str("| method | metric | at | paper | ours | source |\n|---|---|---|---|---|---|\n");
        for x in &r.reported {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                cell(&x.method),
                cell(&x.metric),
                x.x,
                x.paper,
                number(x.ours),
                cell(&x.source)
            );
        }
        s.push('\n');
    }
    for f in &r.figures {
        let _ = writeln!(s, "![{f}]({f})");
    }
}
