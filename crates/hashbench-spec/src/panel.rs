//! A figure written once, its panels as small overrides, and keys several
//! specs state alike written once. A figure file under a paper's
//! `figures/` folder holds what every panel shares (methods, metrics,
//! figures, claims with their quotes); a spec that states
//! `panel = { of = "figures/<name>.toml", name = "...", title = "..." }` is
//! one panel of it: its own top-level keys (its id, title, dataset,
//! transform, split, profiles) replace the figure's key by key, by the rule
//! profiles use, and the figure's `[[figures]]` take the panel's name and
//! title as their prefix. A spec (a panel or not) may also name shared
//! files, `shared_from = ["shared/<name>.toml", ...]` under the paper's
//! `shared/` folder: keys and profile tables several specs state alike (a
//! data set's split and deviations, a paper's kernel), laid over the figure
//! in order and under the spec's own keys; a profile's table is laid over
//! the same profile's table of the files below it, key by key
//! (`method_params` label by label, so a spec can set one more method's
//! parameters without restating its shared file's). A profile
//! may name shared files too (`[profiles.x] shared_from = [...]`): their
//! keys are laid under the profile's own and over that profile's tables in
//! the spec's shared files. The spec's text and every file it is laid
//! over are read as one [`Source`], so every span still names the file and
//! line it was written on.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hashbench_data::paths::read_inside;
use toml::Spanned;
use toml::de::{DeArray, DeString, DeTable, DeValue};

use super::line_of;

/// The folder under `experiments/<paper>/` that holds figure files; the
/// spec listing passes over it.
pub const FOLDER: &str = "figures";

/// The folder under `experiments/<paper>/` that holds shared files; the
/// spec listing passes over it.
pub const SHARED_FOLDER: &str = "shared";

/// The folder under `experiments/<paper>/` that holds the data sets as the
/// paper's experiments read them (`dataset`, `transform`, `split`, and each
/// profile's data and deviation), each written once and named by
/// `shared_from` like a shared file; the spec listing passes over it.
pub const DATASETS_FOLDER: &str = "datasets";

/// The folders `shared_from` names files in.
const SHARED_FOLDERS: [&str; 2] = [DATASETS_FOLDER, SHARED_FOLDER];

/// The folder under `experiments/<paper>/` that holds the argued readings:
/// one question the paper's text leaves open per file, its default, its
/// argument and its other readings, named by a reading's `argued_in`
/// ([`crate::argued`]); the spec listing passes over it.
pub const READINGS_FOLDER: &str = "readings";

/// The largest figure or shared file read.
const MAX_BYTES: u64 = 1 << 20;

/// The keys a figure file may not state: each is its panels' own.
const PANEL_ONLY: [&str; 4] = ["id", "panel", "profiles", "shared_from"];

/// The keys a shared file may not state: a spec's own, and the files it is laid over.
const NOT_SHARED: [&str; 3] = ["id", "panel", "shared_from"];

/// Why a shared file may not name shared files.
pub(crate) const NESTED_SHARED: &str = "named by a spec or its profile, not by a shared file";

/// A panel a figure draws: the figure file, the line of its `drawn_for`,
/// and the keys it writes for the panel (`panel`, `shared_from`, `id`,
/// `title`) as TOML.
#[derive(Debug, Clone)]
pub(crate) struct Drawn {
    /// The figure file.
    pub figure: PathBuf,
    /// The line its `drawn_for` table starts on.
    pub line: usize,
    /// The panel's keys, as TOML.
    pub header: String,
}

/// A file a spec is laid over: its figure (a panel's) or a shared file.
#[derive(Debug)]
pub(crate) struct Layer {
    /// The file.
    pub path: PathBuf,
    /// Where its text starts in [`Source::text`] (after the newline that
    /// separates it from the text before).
    start: usize,
    /// Where its text ends.
    end: usize,
    /// The line every offset of it names, for text made from one place of
    /// `path` (a drawn panel's keys, made from its figure's `drawn_for`).
    line: Option<usize>,
}

/// The text a spec is read from: its own file's, then a newline and the
/// text of each file it is laid over (its figure first, then its shared
/// files in order), so that one byte offset names one place in one file.
#[derive(Debug)]
pub(crate) struct Source {
    /// The spec file.
    pub path: PathBuf,
    /// The spec's text, then its figure's and its shared files'.
    pub text: String,
    /// Where the spec's own text ends.
    own: usize,
    /// The figure file, for a panel.
    pub figure: Option<Layer>,
    /// The shared files, in the order they are laid.
    pub shared: Vec<Layer>,
    /// The shared files each profile names, by profile, in order.
    pub profile_shared: Vec<(String, Layer)>,
    /// The readings files the `[[readings]]` of the spec and of the files
    /// above name (`argued_in`), each once, by the name written.
    pub argued: Vec<(String, Layer)>,
    /// A drawn panel's keys, made from its figure's `drawn_for`
    /// ([`crate::drawn`]), laid under the panel file's own.
    pub drawn: Option<Layer>,
}

/// What a panel says of its figure: the file, and the prefix of the
/// figure's `[[figures]]` names and titles.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PanelOf {
    pub name: String,
    pub title: String,
}

impl Source {
    /// The spec at `path` with `text`, and the files its top level names:
    /// its figure, its shared files (a spec that does not parse is left to
    /// the parser's error, which names its line).
    ///
    /// # Errors
    /// A figure outside the paper's `figures/` folder or a shared file
    /// outside its `shared/` folder, a missing or oversized file.
    pub fn read(path: &Path, text: String, drawn: Option<&Drawn>) -> Result<Source> {
        let own = text.len();
        let (mut figure, mut shared, profile_shared) = files_named(&text);
        let mut source = Source {
            path: path.to_path_buf(),
            text,
            own,
            figure: None,
            shared: Vec::new(),
            profile_shared: Vec::new(),
            argued: Vec::new(),
            drawn: None,
        };
        if let Some(drawn) = drawn {
            // the panel's figure and shared files are the ones its figure draws it with
            let layer = source.append_text(&drawn.figure, &drawn.header, Some(drawn.line));
            (figure, shared, _) = files_named(&source.layer_text(&layer));
            source.drawn = Some(layer);
        }
        if let Some((of, offset)) = figure {
            source.figure = Some(source.append(&of, offset, "panel.of", &[FOLDER])?);
        }
        for (name, offset) in shared {
            let layer = source.append(&name, offset, "shared_from", &SHARED_FOLDERS)?;
            source.shared.push(layer);
        }
        for (profile, (name, offset)) in profile_shared {
            let layer = source.append(&name, offset, "shared_from", &SHARED_FOLDERS)?;
            source.profile_shared.push((profile, layer));
        }
        let texts: Vec<String> = std::iter::once(source.own().to_string())
            .chain(source.layers().map(|l| source.layer_text(l)))
            .collect();
        for (name, offset) in texts.iter().flat_map(|t| argued_named(t)) {
            if source.argued.iter().all(|(n, _)| *n != name) {
                let layer = source.append(&name, offset, "argued_in", &[READINGS_FOLDER])?;
                source.argued.push((name, layer));
            }
        }
        Ok(source)
    }

    /// Appends the file `name` (relative to the spec, inside the paper's
    /// `folder`), named by `key` at `offset`, to the text.
    fn append(&mut self, name: &str, offset: usize, key: &str, folders: &[&str]) -> Result<Layer> {
        let at = self.at(offset);
        // the last folder is the example a message gives
        let folder = folders.last().copied().unwrap_or_default();
        if name.is_empty() {
            bail!(
                "{at}: `{key}` names files by path, as strings: `\"{folder}/<name>.toml\"`{}",
                if key == "shared_from" {
                    " in a list"
                } else {
                    ""
                }
            );
        }
        let inside = folders.iter().any(|folder| {
            Path::new(name).strip_prefix(folder).is_ok_and(|rest| {
                rest.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
            })
        });
        if !inside {
            bail!(
                "{at}: {key} = \"{name}\": the file must be in the paper's {}/ folder (`\"{folder}/<name>.toml\"`)",
                folders.join("/ or ")
            );
        }
        let folder_of_spec = crate::folder_of(&self.path);
        let file = folder_of_spec.join(name);
        let body = read_inside(folder_of_spec, Path::new(name), MAX_BYTES)
            .with_context(|| format!("{at}: {key} = \"{name}\": reading {}", file.display()))?;
        Ok(self.append_text(&file, &body, None))
    }

    /// Appends `body`, the text of `file` (or made at its `line`), to the text.
    fn append_text(&mut self, file: &Path, body: &str, line: Option<usize>) -> Layer {
        self.text.push('\n');
        let start = self.text.len();
        self.text.push_str(body);
        Layer {
            path: file.to_path_buf(),
            start,
            end: self.text.len(),
            line,
        }
    }

    /// The spec's own text.
    pub fn own(&self) -> &str {
        &self.text[..self.own]
    }

    /// The text `layer` is parsed from: every byte before it blanked (a
    /// space, newlines kept), then its own, so that its spans are offsets
    /// of [`Source::text`].
    pub fn layer_text(&self, layer: &Layer) -> String {
        let blank: String = self.text[..layer.start]
            .bytes()
            .map(|b| if b == b'\n' { '\n' } else { ' ' })
            .collect();
        blank + &self.text[layer.start..layer.end]
    }

    /// The file and line of byte `offset`.
    pub fn line(&self, offset: usize) -> (&Path, usize) {
        match self.layer_at(offset) {
            Some(layer) => (
                &layer.path,
                layer.line.unwrap_or_else(|| {
                    line_of(&self.text[layer.start..layer.end], offset - layer.start)
                }),
            ),
            None => (&self.path, line_of(self.own(), offset)),
        }
    }

    /// `path:line` of byte `offset`.
    pub fn at(&self, offset: usize) -> String {
        let (path, line) = self.line(offset);
        format!("{}:{line}", path.display())
    }

    /// The files the spec is laid over, in the order they are laid (the
    /// figure, the top level's shared files, the profiles'), then the
    /// readings files its readings are argued in, then a drawn panel's keys.
    pub fn layers(&self) -> impl Iterator<Item = &Layer> {
        self.figure
            .iter()
            .chain(&self.shared)
            .chain(self.profile_shared.iter().map(|(_, l)| l))
            .chain(self.argued.iter().map(|(_, l)| l))
            .chain(&self.drawn)
    }

    /// Whether `offset` lies in a file the spec is laid over.
    pub fn in_layer(&self, offset: usize) -> bool {
        self.layer_at(offset).is_some()
    }

    /// The file the spec is laid over that holds `offset`.
    fn layer_at(&self, offset: usize) -> Option<&Layer> {
        self.layers().find(|l| offset >= l.start && offset <= l.end)
    }
}

/// A file a spec names, and the offset of its name.
type Named = (String, usize);

/// The figure (`panel.of`), the shared files (`shared_from`) and each
/// profile's shared files of a spec's text, each with its offset, when the
/// text parses (a value of the wrong type is named as an empty path,
/// refused with its place).
fn files_named(text: &str) -> (Option<Named>, Vec<Named>, Vec<(String, Named)>) {
    let Ok(doc) = DeTable::parse(text) else {
        return (None, Vec::new(), Vec::new());
    };
    let figure = doc
        .get_ref()
        .get("panel")
        .and_then(|p| p.get_ref().as_table()?.get("of"))
        .map(named);
    let shared = shared_named(doc.get_ref());
    let profiles = doc
        .get_ref()
        .get("profiles")
        .and_then(|p| p.get_ref().as_table())
        .into_iter()
        .flatten()
        .filter_map(|(name, table)| Some((name.get_ref().to_string(), table.get_ref().as_table()?)))
        .flat_map(|(name, table)| {
            shared_named(table)
                .into_iter()
                .map(move |n| (name.clone(), n))
        })
        .collect();
    (figure, shared, profiles)
}

/// The readings files the top-level `[[readings]]` of `text` name
/// (`argued_in`), each with its offset in `text`, when the text parses.
fn argued_named(text: &str) -> Vec<Named> {
    let Ok(doc) = DeTable::parse(text) else {
        return Vec::new();
    };
    let Some(DeValue::Array(readings)) = doc.get_ref().get("readings").map(|r| r.get_ref()) else {
        return Vec::new();
    };
    readings
        .iter()
        .filter_map(|r| r.get_ref().as_table()?.get("argued_in"))
        .map(named)
        .collect()
}

/// The files a table's `shared_from` names.
fn shared_named(table: &DeTable<'_>) -> Vec<Named> {
    match table.get("shared_from") {
        None => Vec::new(),
        Some(v) => match v.get_ref() {
            DeValue::Array(list) => list.iter().map(named).collect(),
            _ => vec![(String::new(), v.span().start)],
        },
    }
}

/// A string value and its offset (another value: an empty name).
fn named(v: &Spanned<DeValue<'_>>) -> Named {
    match v.get_ref() {
        DeValue::String(s) => (s.to_string(), v.span().start),
        _ => (String::new(), v.span().start),
    }
}

/// The files below a spec laid into one top level: its figure's, then each
/// shared file's keys replacing the ones below them, and every shared
/// file's profiles merged (see [`lay_profiles`]). Returns the laid top
/// level and the shared files' profiles.
///
/// # Errors
/// A figure that states a panel's key, or a shared file that states a key
/// only a spec takes.
pub(crate) fn lay_layers<'t>(
    source: &Source,
    figure: Option<DeTable<'t>>,
    shared: Vec<DeTable<'t>>,
) -> Result<(DeTable<'t>, Option<DeTable<'t>>)> {
    let mut laid = match figure {
        Some(figure) => {
            refuse_keys(
                source,
                &figure,
                &PANEL_ONLY,
                "a panel's own key: a figure file holds what its panels share",
            )?;
            figure
        }
        None => DeTable::default(),
    };
    let mut profiles: Option<DeTable<'t>> = None;
    for mut layer in shared {
        refuse_keys(
            source,
            &layer,
            &NOT_SHARED,
            "a spec's own key: a shared file holds what several specs state alike",
        )?;
        if let Some(p) = layer.remove("profiles") {
            let at = source.at(p.span().start);
            let DeValue::Table(p) = p.into_inner() else {
                bail!("{at}: `profiles` holds the profiles, one [profiles.<name>] table each");
            };
            for table in p.values() {
                if let Some(t) = table.get_ref().as_table() {
                    refuse_keys(source, t, &["shared_from"], NESTED_SHARED)?;
                }
            }
            profiles = Some(match profiles {
                Some(below) => lay_profiles(below, p),
                None => p,
            });
        }
        replace_keys(&mut laid, layer);
    }
    Ok((laid, profiles))
}

/// `upper`'s profiles laid over `lower`'s: a profile in both is `lower`'s
/// table with `upper`'s keys laid over its own ([`lay_profile_keys`]).
pub(crate) fn lay_profiles<'t>(mut lower: DeTable<'t>, upper: DeTable<'t>) -> DeTable<'t> {
    for (name, table) in upper {
        lay_entry(&mut lower, name, table, lay_profile_keys);
    }
    lower
}

/// Each key of the profile table `upper` replaces `lower`'s, except
/// `method_params`, whose labels are laid over `lower`'s one by one, and
/// `deviation`, which adds to it ([`replace_keys`]).
pub(crate) fn lay_profile_keys<'t>(lower: &mut DeTable<'t>, mut upper: DeTable<'t>) {
    if let Some((key, params)) = upper.remove_entry("method_params") {
        lay_entry(lower, key, params, replace_keys);
    }
    replace_keys(lower, upper);
}

/// The entry `key = above` put into `lower`: a table laid by `lay` over the
/// table `lower` holds under the same key, anything else in its place.
fn lay_entry<'t>(
    lower: &mut DeTable<'t>,
    key: Spanned<DeString<'t>>,
    above: Spanned<DeValue<'t>>,
    lay: fn(&mut DeTable<'t>, DeTable<'t>),
) {
    let span = above.span();
    let below = lower
        .remove(key.get_ref().as_ref())
        .map(Spanned::into_inner);
    let merged = match (below, above.into_inner()) {
        (Some(DeValue::Table(mut below)), DeValue::Table(above)) => {
            lay(&mut below, above);
            DeValue::Table(below)
        }
        (_, above) => above,
    };
    lower.insert(key, Spanned::new(span, merged));
}

/// Each key of `upper` replaces `lower`'s, but `deviation`, which adds to
/// it: a list each layer extends (a data set's departure from the paper,
/// then what a figure's profile adds), never a text each layer restates.
pub(crate) fn replace_keys<'t>(lower: &mut DeTable<'t>, upper: DeTable<'t>) {
    for (key, value) in upper {
        let below = lower.remove(key.get_ref().as_ref());
        let value = match below {
            Some(below) if key.get_ref() == "deviation" => added(below, value),
            _ => value,
        };
        lower.insert(key, value);
    }
}

/// The list of `below`'s items, then `above`'s (a string is a list of one).
fn added<'t>(below: Spanned<DeValue<'t>>, above: Spanned<DeValue<'t>>) -> Spanned<DeValue<'t>> {
    let span = above.span();
    let mut list = DeArray::new();
    for value in [below, above] {
        match value.get_ref() {
            DeValue::Array(items) => items.iter().for_each(|i| list.push(i.clone())),
            _ => list.push(value),
        }
    }
    Spanned::new(span, DeValue::Array(list))
}

/// The first of `keys` that `table` states, refused with its place.
pub(crate) fn refuse_keys(
    source: &Source,
    table: &DeTable<'_>,
    keys: &[&str],
    why: &str,
) -> Result<()> {
    if let Some((key, _)) = table
        .iter()
        .find(|(k, _)| keys.contains(&k.get_ref().as_ref()))
    {
        bail!(
            "{}: `{}` is {why}",
            source.at(key.span().start),
            key.get_ref()
        );
    }
    Ok(())
}

/// A panel's figure file with the panel's prefix: `panel` (taken out of
/// `own`) names the prefix of the figure's `[[figures]]` names and titles,
/// unless the panel writes its own `[[figures]]` (only the figure file's
/// plots are prefixed, not a shared file's).
///
/// # Errors
/// A `panel` table that is not `{ of, name, title }` strings.
pub(crate) fn prefix_figures(
    source: &Source,
    own: &mut DeTable<'_>,
    figure: &mut DeTable<'_>,
) -> Result<()> {
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
    Ok(())
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
