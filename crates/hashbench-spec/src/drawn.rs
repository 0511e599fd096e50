//! A figure drawn for its data sets and truths: a figure file's `drawn_for`
//! table lists the truths it is drawn against (each its own figure of the
//! paper) and the data sets it is drawn on (each a panel letter), and the
//! planner makes one panel of each pair, as it makes one trial of each
//! method, length and seed:
//!
//! ```toml
//! [drawn_for]
//! title = "F1 of SH_ENCW at Hamming radius 0-3 against code length"
//! truths = [
//!     { figure = "fig3", caption = "Fig. 3", truth = "the 25 nearest training items", shared_from = ["shared/fig3.toml"] },
//! ]
//! datasets = [
//!     { panel = "b", suffix = "-reuters", name = "Reuters-21578", shared_from = ["datasets/reuters.toml"] },
//! ]
//! ```
//!
//! draws `experiments/<paper>/fig3-reuters.toml`, id `<paper>-fig3-reuters`,
//! titled "Reuters-21578: <title>, <truth> (Fig. 3b)": from the bottom, the
//! figure, the data set's shared files, the truth's, then the panel's own. The panel has no
//! file of its own unless it states something the others do not (its
//! profiles, its method set): a file at that path holds only that.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use toml::Spanned;

use crate::line_of;
use crate::panel::{Drawn, FOLDER};

/// What a figure file says of its panels (its other keys are its panels').
#[derive(Deserialize)]
struct FigureFile {
    drawn_for: Option<Spanned<DrawnFor>>,
}

/// The truths and data sets a figure is drawn for.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawnFor {
    /// What every panel shows, the middle of its title.
    title: String,
    truths: Vec<Truth>,
    datasets: Vec<DataSet>,
}

/// A truth the figure is drawn against: one figure of the paper.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Truth {
    /// Its panels' file names and ids start with this ("fig3").
    figure: String,
    /// The paper's name of the figure ("Fig. 3").
    caption: String,
    /// The truth as a title says it ("the 25 nearest training items").
    truth: String,
    /// Its shared files (its `ground_truth`, its `paper` reference).
    shared_from: Vec<String>,
}

/// A data set the figure is drawn on: one panel letter.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DataSet {
    /// The panel's letter ("b").
    panel: String,
    /// What follows the figure in its panels' file names and ids
    /// ("-reuters"; "" for the figure's first data set).
    suffix: String,
    /// The data set as a title names it ("Reuters-21578").
    name: String,
    /// Its data set file, and any file its panels of this figure share.
    shared_from: Vec<String>,
}

/// Every panel the figures of the paper folder `paper` draw, by path.
///
/// # Errors
/// An unreadable or malformed figure file, a figure or suffix that is not a
/// file name's part, or two panels at one path.
pub(crate) fn panels_in(paper: &Path) -> Result<Vec<(PathBuf, Drawn)>> {
    let mut panels: Vec<(PathBuf, Drawn)> = Vec::new();
    let Ok(entries) = std::fs::read_dir(paper.join(FOLDER)) else {
        return Ok(panels);
    };
    let mut figures: Vec<PathBuf> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    figures.sort();
    for figure in figures {
        for (path, drawn) in drawn_by(paper, &figure)? {
            if let Some((_, first)) = panels.iter().find(|(p, _)| *p == path) {
                bail!(
                    "{}:{}: draws {}, which {}:{} draws too",
                    drawn.figure.display(),
                    drawn.line,
                    path.display(),
                    first.figure.display(),
                    first.line
                );
            }
            panels.push((path, drawn));
        }
    }
    Ok(panels)
}

/// The panel a figure of its folder draws at `path`, if one does.
///
/// # Errors
/// As [`panels_in`], for a path with no file (a spec file beside a broken
/// figure loads as written: only the figure's own panels fail).
pub(crate) fn drawn_at(path: &Path) -> Result<Option<Drawn>> {
    match panels_in(crate::folder_of(path)) {
        Ok(panels) => Ok(panels
            .into_iter()
            .find(|(p, _)| p.file_name() == path.file_name())
            .map(|(_, d)| d)),
        Err(_) if path.is_file() => Ok(None),
        Err(e) => Err(e),
    }
}

/// The panels the figure file `figure` of `paper` draws.
fn drawn_by(paper: &Path, figure: &Path) -> Result<Vec<(PathBuf, Drawn)>> {
    let text = std::fs::read_to_string(figure)
        .with_context(|| format!("reading figure {}", figure.display()))?;
    let file: FigureFile = toml::from_str(&text).map_err(|e| {
        let line = e
            .span()
            .map_or_else(String::new, |s| format!(":{}", line_of(&text, s.start)));
        anyhow!("{}{line}: {}", figure.display(), e.message())
    })?;
    let Some(drawn) = file.drawn_for else {
        return Ok(Vec::new());
    };
    let line = line_of(&text, drawn.span().start);
    let drawn = drawn.into_inner();
    // the folder's own name, however the path reached it (".", "..", a link)
    let folder = paper
        .canonicalize()
        .with_context(|| format!("resolving {}", paper.display()))?;
    let paper_name = folder
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow!("{}: a paper folder named in UTF-8", folder.display()))?;
    let of = format!(
        "{FOLDER}/{}",
        figure
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    );
    let plain = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    for (what, part) in drawn
        .truths
        .iter()
        .map(|t| ("figure", &t.figure))
        .chain(drawn.datasets.iter().map(|d| ("suffix", &d.suffix)))
    {
        if !plain(part) || (what == "figure" && part.is_empty()) {
            bail!(
                "{}:{line}: drawn_for: {what} = \"{part}\": a part of the panels' file names (letters, digits, '-', '_')",
                figure.display()
            );
        }
    }
    let mut panels = Vec::new();
    for truth in &drawn.truths {
        for data in &drawn.datasets {
            let stem = format!("{}{}", truth.figure, data.suffix);
            let quoted = |s: &str| toml::Value::from(s).to_string();
            let list = |l: Vec<&String>| {
                let items: Vec<String> = l.iter().map(|s| quoted(s)).collect();
                format!("[{}]", items.join(", "))
            };
            let header = format!(
                "panel = {{ of = {}, name = {}, title = {} }}\nshared_from = {}\nid = {}\ntitle = {}\n",
                quoted(&of),
                quoted(&format!("{}{}", truth.figure, data.panel)),
                quoted(&format!("{}({}) {}", truth.caption, data.panel, data.name)),
                list(data.shared_from.iter().chain(&truth.shared_from).collect()),
                quoted(&format!("{paper_name}-{stem}")),
                quoted(&format!(
                    "{}: {}, {} ({}{})",
                    data.name, drawn.title, truth.truth, truth.caption, data.panel
                )),
            );
            let drawn = Drawn {
                figure: figure.to_path_buf(),
                line,
                header,
            };
            panels.push((paper.join(format!("{stem}.toml")), drawn));
        }
    }
    Ok(panels)
}

#[cfg(test)]
mod tests;
