//! A figure written once, its panels as small overrides. A figure file under
//! a paper's `figures/` folder holds what every panel shares (methods,
//! metrics, figures, claims with their quotes); a spec that states
//! `panel = { of = "figures/<name>.toml", name = "...", title = "..." }` is
//! one panel of it: its own top-level keys (its id, title, dataset,
//! transform, split, profiles) replace the figure's key by key, by the rule
//! profiles use, and the figure's `[[figures]]` take the panel's name and
//! title as their prefix. The panel's text and the figure's are read as one
//! [`Source`], so every span still names the file and line it was written on.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use toml::de::{DeTable, DeValue};

use super::{line_of, place};

/// The folder under `experiments/<paper>/` that holds figure files; the
/// spec listing passes over it.
pub const FOLDER: &str = "figures";

/// The largest figure file read.
const MAX_BYTES: u64 = 1 << 20;

/// The keys a figure file may not state: each is its panels' own.
const PANEL_ONLY: [&str; 3] = ["id", "panel", "profiles"];

/// The text a spec is read from: its own file's, then (for a panel) a
/// newline and its figure file's, so that one byte offset names one place
/// in one of the two files.
#[derive(Debug)]
pub(crate) struct Source {
    /// The spec file.
    pub path: PathBuf,
    /// The spec's text, then the figure's.
    pub text: String,
    /// Where the spec's own text ends.
    own: usize,
    /// The figure file, for a panel.
    pub figure: Option<PathBuf>,
}

/// What a panel says of its figure: the file, and the prefix of the
/// figure's `[[figures]]` names and titles.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PanelOf {
    pub name: String,
    pub title: String,
}

impl Source {
    /// The spec at `path` with `text`, and its figure file when its top
    /// level names one (a spec that does not parse is left to the parser's
    /// error, which names its line).
    ///
    /// # Errors
    /// A figure path outside the paper's `figures/` folder, or a missing or
    /// oversized figure file.
    pub fn read(path: &Path, text: String) -> Result<Source> {
        let own = text.len();
        let mut source = Source {
            path: path.to_path_buf(),
            text,
            own,
            figure: None,
        };
        let Some((of, offset)) = figure_named(&source.text) else {
            return Ok(source);
        };
        let at = place(path, &source.text, offset);
        let inside = Path::new(&of).strip_prefix(FOLDER).is_ok_and(|rest| {
            rest.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
        });
        if !inside {
            bail!(
                "{at}: panel.of = \"{of}\": a figure is a file of the paper's {FOLDER}/ folder (`of = \"{FOLDER}/<name>.toml\"`)"
            );
        }
        let file = path.parent().unwrap_or(Path::new(".")).join(&of);
        let size = std::fs::metadata(&file)
            .with_context(|| format!("{at}: panel.of = \"{of}\": reading {}", file.display()))?
            .len();
        if size > MAX_BYTES {
            bail!("{at}: panel.of = \"{of}\": {size} bytes, more than a figure file holds");
        }
        let figure = std::fs::read_to_string(&file)
            .with_context(|| format!("{at}: panel.of = \"{of}\": reading {}", file.display()))?;
        source.text.push('\n');
        source.text.push_str(&figure);
        source.figure = Some(file);
        Ok(source)
    }

    /// The spec's own text.
    pub fn own(&self) -> &str {
        &self.text[..self.own]
    }

    /// The text the figure is parsed from: the spec's text blanked (every
    /// byte but its newlines a space), then the figure's, so that the
    /// figure's spans are offsets of [`Source::text`].
    pub fn figure_text(&self) -> Option<String> {
        self.figure.as_ref()?;
        let blank: String = self
            .own()
            .bytes()
            .map(|b| if b == b'\n' { '\n' } else { ' ' })
            .collect();
        Some(blank + &self.text[self.own..])
    }

    /// The file and line of byte `offset`.
    pub fn line(&self, offset: usize) -> (&Path, usize) {
        match &self.figure {
            Some(figure) if offset > self.own => (
                figure,
                line_of(&self.text[self.own + 1..], offset - self.own - 1),
            ),
            _ => (&self.path, line_of(self.own(), offset)),
        }
    }

    /// `path:line` of byte `offset`.
    pub fn at(&self, offset: usize) -> String {
        let (path, line) = self.line(offset);
        format!("{}:{line}", path.display())
    }

    /// Whether `offset` lies in the figure file.
    pub fn in_figure(&self, offset: usize) -> bool {
        self.figure.is_some() && offset > self.own
    }
}

/// `panel.of` of a spec's text and its offset, when the text parses and
/// names one.
fn figure_named(text: &str) -> Option<(String, usize)> {
    let doc = DeTable::parse(text).ok()?;
    let panel = doc.get_ref().get("panel")?;
    let of = panel.get_ref().as_table()?.get("of")?;
    match of.get_ref() {
        DeValue::String(s) => Some((s.to_string(), of.span().start)),
        _ => Some((String::new(), of.span().start)),
    }
}

/// The figure's top level with the panel's laid over it: `panel` (taken
/// out of `own`) names the prefix of the figure's `[[figures]]`, each of
/// the panel's keys replaces the figure's. `at` names places for errors.
///
/// # Errors
/// A figure that states a panel's key, or a `panel` table that is not
/// `{ of, name, title }` strings.
pub(crate) fn lay<'t>(
    source: &Source,
    mut own: DeTable<'t>,
    mut figure: DeTable<'t>,
) -> Result<DeTable<'t>> {
    if let Some((key, _)) = figure
        .iter()
        .find(|(k, _)| PANEL_ONLY.contains(&k.get_ref().as_ref()))
    {
        bail!(
            "{}: `{}` is a panel's own key: a figure file holds what its panels share",
            source.at(key.span().start),
            key.get_ref()
        );
    }
    let panel = own.remove("panel").expect("a panel names its figure");
    let at = source.at(panel.span().start);
    let prefix = panel_of(panel.get_ref())
        .ok_or_else(|| anyhow::anyhow!("{at}: `panel` is {{ of = \"{FOLDER}/<name>.toml\", name = \"...\", title = \"...\" }}: the figure file, and the name and title its figures take as their prefix"))?;
    if !own.contains_key("figures")
        && let Some(figures) = figure.get_mut("figures")
        && let DeValue::Array(list) = figures.get_mut()
    {
        for item in list.iter_mut() {
            if let DeValue::Table(t) = item.get_mut() {
                prefix_value(t, "name", &prefix.name, "-");
                prefix_value(t, "title", &prefix.title, ": ");
            }
        }
    }
    for (key, value) in own {
        figure.remove(key.get_ref().as_ref());
        figure.insert(key, value);
    }
    Ok(figure)
}

/// The name and title of a `panel` table of three strings.
fn panel_of(panel: &DeValue<'_>) -> Option<PanelOf> {
    let t = panel.as_table()?;
    let text = |k: &str| match t.get(k)?.get_ref() {
        DeValue::String(s) => Some(s.to_string()),
        _ => None,
    };
    if t.len() != 3 {
        return None;
    }
    text("of")?;
    Some(PanelOf {
        name: text("name")?,
        title: text("title")?,
    })
}

/// `prefix`, `sep` and the string at `key` of `t`, when it is a string.
fn prefix_value(t: &mut DeTable<'_>, key: &str, prefix: &str, sep: &str) {
    if let Some(v) = t.get_mut(key)
        && let DeValue::String(s) = v.get_mut()
    {
        *s = format!("{prefix}{sep}{s}").into();
    }
}
