//! The report as one static page (`results/index.html`): no scripts or fonts
//! from elsewhere, so it works from the file system; a small inline script
//! checks that every figure loaded and every link resolves.

use std::fmt::Write as _;

use super::*;

/// `text` escaped for HTML.
pub(super) fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A self-check the page runs when opened as `index.html#check` (the
/// browser test): it counts figures that failed to load and links whose
/// target cannot be read, and writes the result into `body[data-check]`.
const SELF_CHECK: &str = r##"<script>
if (location.hash === "#check") {
  window.addEventListener("load", function () {
    var images = Array.prototype.slice.call(document.images);
    var badImages = images.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
      .map(function (i) { return i.getAttribute("src"); });
    var hrefs = Array.prototype.slice.call(document.querySelectorAll("a[href]"))
      .map(function (a) { return a.getAttribute("href"); });
    var broken = [];
    var pending = hrefs.length;
    function done() {
      document.body.setAttribute("data-check", JSON.stringify({
        images: images.length, bad_images: badImages, links: hrefs.length, broken_links: broken }));
    }
    if (pending === 0) { done(); }
    hrefs.forEach(function (href) {
      function settle(ok) { if (!ok) { broken.push(href); } pending -= 1; if (pending === 0) { done(); } }
      if (href.charAt(0) === "#") { settle(document.getElementById(href.slice(1)) !== null); return; }
      var request = new XMLHttpRequest();
      request.onload = function () { settle(request.status === 200 || request.status === 0); };
      request.onerror = function () { settle(false); };
      try { request.open("GET", href); request.send(); } catch (e) { settle(false); }
    });
  });
}
</script>"##;

/// The report as a static HTML page (links and figures relative to the
/// results folder).
pub fn html(report: &Report) -> String {
    let mut s = String::from(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>hashbench reproduction report</title>\n<style>\nbody{font-family:sans-serif;max-width:72rem;margin:auto;padding:1rem;line-height:1.4}\ntable{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #bbb;padding:.2rem .5rem;vertical-align:top;text-align:left}\n.holds{color:#176117;font-weight:bold}.fails{color:#a11;font-weight:bold}.inconclusive{color:#8a6d00;font-weight:bold}.not-testable-here{color:#666;font-weight:bold}\nfigure{display:inline-block;margin:.5rem}figure img{max-width:34rem}\n</style>\n</head>\n<body>\n<h1>hashbench reproduction report</h1>\n",
    );
    write_overview(&mut s, report);
    for p in &report.papers {
        let _ = writeln!(
            s,
            "<section id=\"paper-{}\">\n<h2>{}: {}</h2>\n<p class=\"counts\">{}</p>",
            esc(&p.key),
            esc(&p.key),
            esc(&p.citation),
            esc(&p.tally().sentence(p.runs.len()))
        );
        write_readings(&mut s, p);
        for r in &p.runs {
            write_run(&mut s, r);
        }
        if !p.skipped.is_empty() {
            s.push_str("<h3>Not run</h3>\n<ul class=\"skipped\">\n");
            for k in &p.skipped {
                let _ = writeln!(s, "<li>{}: {}</li>", esc(&k.id), esc(&k.reason));
            }
            s.push_str("</ul>\n");
        }
        s.push_str("</section>\n");
    }
    s.push_str(SELF_CHECK);
    s.push_str("\n</body>\n</html>\n");
    s
}

/// The page's opening: the rule, the totals per paper and the cost per paper.
fn write_overview(s: &mut String, report: &Report) {
    s.push_str("<p>Claims checked on the stored runs (<code>hashbench report</code>; <code>just run-all</code> ends with it).</p>\n");
    let _ = writeln!(
        s,
        "<p class=\"rule\">{}</p>",
        esc(&hashbench_claims::rule())
    );
    let _ = writeln!(
        s,
        "<p>{}</p>\n<table id=\"totals\">\n<tr>{}</tr>",
        esc(TOTALS_NOTE),
        TOTALS_HEADER
            .map(|h| format!("<th>{}</th>", esc(h)))
            .join("")
    );
    for p in report.papers.iter().filter(|p| !p.is_cross_check()) {
        let cells: String = p.totals().iter().map(|c| format!("<td>{c}</td>")).collect();
        let _ = writeln!(
            s,
            "<tr><td><a href=\"#paper-{k}\">{k}</a></td>{cells}</tr>",
            k = esc(&p.key)
        );
    }
    s.push_str("</table>\n");
    let _ = writeln!(
        s,
        "<p>Cost per paper. {}</p>\n<table id=\"cost\">\n<tr>{}</tr>",
        esc(COST_NOTE),
        COST_HEADER.map(|h| format!("<th>{}</th>", esc(h))).join("")
    );
    for p in &report.papers {
        let cells: Vec<String> = cost_cells(p)
            .iter()
            .map(|c| format!("<td>{}</td>", esc(c)))
            .collect();
        let _ = writeln!(s, "<tr><td>{}</td>{}</tr>", esc(&p.key), cells.join(""));
    }
    s.push_str("</table>\n");
}

/// A paper's readings that can decide its verdicts, each with its argument
/// and the statements it moves.
fn write_readings(s: &mut String, p: &PaperSection) {
    let readings = p.readings();
    if readings.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "<table class=\"readings\">\n<caption>Readings that decide verdicts</caption>\n<tr>{}<th>argument</th></tr>",
        READINGS_HEADER
            .map(|h| format!("<th>{}</th>", esc(h)))
            .join("")
    );
    for (r, moved) in readings {
        let _ = writeln!(
            s,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td><details><summary>from the text</summary>{}</details></td></tr>",
            esc(&r.id),
            esc(&r.default),
            esc(&r.reading),
            esc(&moved),
            esc(&r.argument)
        );
    }
    s.push_str("</table>\n");
}

/// One run: its heading, deviation, files, cost, verdicts, the paper's
/// numbers beside ours, and its figures.
fn write_run(s: &mut String, r: &RunEntry) {
    let _ = writeln!(
        s,
        "<article id=\"run-{}\">\n<h3>{} [{}]: {}</h3>",
        esc(&r.id),
        esc(&r.id),
        esc(&r.profile),
        esc(&r.title)
    );
    if r.stale {
        let _ = writeln!(s, "<p class=\"stale\"><strong>Stale:</strong> {STALE}.</p>");
    }
    let _ = writeln!(
        s,
        "<p class=\"deviation\">{}</p>",
        r.deviation.as_deref().map_or_else(
            || "The paper's protocol.".to_string(),
            |d| format!("Deviation: {}", esc(d))
        )
    );
    let links: Vec<String> = r
        .files
        .iter()
        .map(|f| format!("<a href=\"{}\">{}</a>", esc(f), esc(f)))
        .collect();
    let _ = writeln!(s, "<p class=\"files\">Files: {}</p>", links.join(", "));
    let _ = writeln!(
        s,
        "<p class=\"cost\">Cost: {}.</p>",
        esc(&run_cost(&r.cost))
    );
    if !r.verdicts.is_empty() {
        s.push_str("<table class=\"claims\">\n<tr><th>claim</th><th>paper</th><th>basis</th><th>verdict</th><th>under each reading</th><th>evidence</th><th>diagnosis</th></tr>\n");
        for v in &r.verdicts {
            let _ = writeln!(
                s,
                "<tr><td><code>{}</code> {}</td><td>\u{201c}{}\u{201d} ({})</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td><details><summary>numbers</summary>{}</details></td><td><details><summary>{}</summary>{}</details></td></tr>",
                esc(&v.id),
                esc(&v.scope),
                esc(&v.quote),
                esc(&v.source),
                v.basis.name(),
                v.outcome.name().replace(' ', "-"),
                esc(&shown_verdict(v)),
                esc(&under_readings(v)),
                esc(&v.evidence),
                esc(&diagnosis_gist(v)),
                esc(&v.shown_diagnosis())
            );
        }
        s.push_str("</table>\n");
    }
    if !r.reported.is_empty() {
        s.push_str("<table class=\"reported\">\n<tr><th>method</th><th>metric</th><th>at</th><th>paper</th><th>ours</th><th>source</th></tr>\n");
        for x in &r.reported {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&x.method),
                esc(&x.metric),
                esc(&x.x),
                x.paper,
                number(x.ours),
                esc(&x.source)
            );
        }
        s.push_str("</table>\n");
    }
    for f in &r.figures {
        let _ = writeln!(
            s,
            "<figure><img src=\"{f}\" alt=\"{f}\"><figcaption>{f}</figcaption></figure>",
            f = esc(f)
        );
    }
    s.push_str("</article>\n");
}
