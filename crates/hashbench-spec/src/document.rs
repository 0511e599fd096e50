//! A spec's TOML document parsed once with the files it is laid over (its
//! figure, its shared files, its profiles' shared files: `panel`), and each
//! profile's protocol made from it: the profile's table laid over the top
//! level key by key (a key the profile states replaces the top level's,
//! whatever it is), then read into the one typed form, [`Protocol`]. Values
//! keep the spans of the lines they were written on, in whichever file, so
//! a syntax or schema error names its file and line.

use std::collections::BTreeMap;
use std::ops::Range;

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::argued;
use crate::numbers::{self, Number};
use crate::panel::{self, Source};
use crate::{PAPER_PROFILE, Protocol};

/// The paper's protocol and each declared profile's, read from `source`
/// (a panel's top level laid over its figure's first).
///
/// # Errors
/// TOML syntax, a number that is not finite, a key on the wrong level, a
/// profile without its `deviation`, a figure that states a panel's key, or a
/// schema error, each with its file and line.
pub(crate) fn protocols(source: &Source) -> Result<(Protocol, BTreeMap<String, Protocol>)> {
    let layer_texts: Vec<String> = source.layers().map(|l| source.layer_text(l)).collect();
    let (doc, declared) = Document::parse(source, &layer_texts)?;
    let paper = doc.read(doc.base.clone())?;
    let Some(declared) = declared else {
        return Ok((paper, BTreeMap::new()));
    };
    let DeValue::Table(declared) = declared.get_ref() else {
        bail!(
            "{}: `profiles` holds the profiles, one [profiles.<name>] table each",
            doc.at(declared.span().start)
        );
    };
    let mut profiles = BTreeMap::new();
    for (name, table) in declared {
        let header = doc.at(name.span().start);
        if name.get_ref() == PAPER_PROFILE {
            bail!(
                "{header}: [profiles.{PAPER_PROFILE}]: the `{PAPER_PROFILE}` profile is the spec's top level; give this profile another name"
            );
        }
        let DeValue::Table(over) = table.get_ref() else {
            bail!(
                "{header}: profiles.{} is a table of the keys it restates",
                name.get_ref()
            );
        };
        let protocol = doc.profile(name.get_ref(), &header, over)?;
        profiles.insert(name.get_ref().to_string(), protocol);
    }
    Ok((paper, profiles))
}

/// The protocol of `profile` as one table, before it is read into its typed
/// form: the top level laid over its figure and shared files, the
/// profile's table laid over it, every value with its span in
/// `source.text`; handed to `show` (the merged protocol `hashbench show`
/// prints).
///
/// # Errors
/// As [`protocols`], or a profile the spec does not declare.
pub(crate) fn with_laid<R>(
    source: &Source,
    profile: &str,
    show: impl FnOnce(&DeTable<'_>) -> Result<R>,
) -> Result<R> {
    let layer_texts: Vec<String> = source.layers().map(|l| source.layer_text(l)).collect();
    let (doc, declared) = Document::parse(source, &layer_texts)?;
    if profile == PAPER_PROFILE {
        return show(&doc.base);
    }
    let over = declared
        .as_ref()
        .and_then(|d| d.get_ref().as_table())
        .and_then(|d| d.get(profile))
        .and_then(|t| t.get_ref().as_table())
        .ok_or_else(|| anyhow!("{}: no profile `{profile}`", source.path.display()))?;
    show(&doc.lay(over))
}

/// A spec's document: its top level without `profiles` (laid over its
/// figure's and its shared files'), and every number it holds (for the refusals that
/// name a number's key).
struct Document<'t> {
    source: &'t Source,
    span: Range<usize>,
    base: DeTable<'t>,
    numbers: Vec<Number>,
}

impl<'t> Document<'t> {
    /// The parsed document and its `profiles` value (the shared files'
    /// laid under the spec's), every number finite and every key on its
    /// level; `layer_texts`: the files the spec is laid over, as
    /// [`Source::layer_text`] gives them, in [`Source::layers`]' order.
    fn parse(
        source: &'t Source,
        layer_texts: &'t [String],
    ) -> Result<(Self, Option<Spanned<DeValue<'t>>>)> {
        let parsed = DeTable::parse(source.own()).map_err(|mut e| {
            e.set_input(Some(source.own()));
            anyhow!("{}: {e}", source.path.display())
        })?;
        let (mut layers, mut numbers) = parse_layers(source, layer_texts)?;
        numbers.extend(numbers::numbers_of(parsed.get_ref()));
        numbers.sort_by_key(|n| n.span.start);
        let mut doc = Document {
            source,
            span: parsed.span(),
            base: DeTable::default(),
            numbers,
        };
        doc.refuse_misplaced(parsed.get_ref())?;
        let drawn = source.drawn.is_some().then(|| layers.pop()).flatten();
        let argued = layers.split_off(layers.len() - source.argued.len());
        let figure = source.figure.is_some().then(|| layers.remove(0));
        let profile_shared: Vec<(String, DeTable<'t>)> = source
            .profile_shared
            .iter()
            .map(|(name, _)| name.clone())
            .zip(layers.split_off(source.shared.len()))
            .collect();
        let mut own = parsed.into_inner();
        if let Some(drawn) = drawn {
            lay_drawn(source, &mut own, drawn)?;
        }
        let own_profiles = own.remove("profiles");
        own.remove("shared_from");
        // only the figure file's plots take a panel's prefix
        let figure = match figure {
            Some(mut figure) => {
                // what the figure draws, not what its panels state
                figure.remove("drawn_for");
                panel::prefix_figures(source, &mut own, &mut figure)?;
                Some(figure)
            }
            None => None,
        };
        let (mut below, shared_profiles) = panel::lay_layers(source, figure, layers)?;
        panel::replace_keys(&mut below, own);
        argued::fill(source, &mut below, argued)?;
        doc.base = below;
        let own_profiles = own_profiles
            .map(|p| lay_profiles_shared(source, p, profile_shared))
            .transpose()?;
        let declared = declared_profiles(shared_profiles, own_profiles);
        if let Some(declared) = &declared {
            refuse_top_level_keys(source, declared.get_ref())?;
        }
        panel::refuse_keys(
            source,
            &doc.base,
            &PROFILE_ONLY,
            "a profile's key: move it into the profile it applies to, e.g. [profiles.ci]",
        )?;
        Ok((doc, declared))
    }

    /// Refuses a number that is not finite, a top-level key written under a
    /// profile's header, and `panel` in a spec that names no figure.
    fn refuse_misplaced(&self, own: &DeTable<'_>) -> Result<()> {
        if let Some(n) = numbers::first_non_finite(&self.numbers) {
            bail!(
                "{}: `{}` = {}: every number of a spec is finite (no key takes NaN or an infinity)",
                self.at(n.span.start),
                n.key,
                n.text
            );
        }
        if let Some((key, profile, offset)) = top_level_key_in_a_profile(own) {
            let instead = if key == "methods" {
                format!(
                    " (a profile sets its methods' parameters by label or method name in [profiles.{profile}.method_params.\"LABEL\"])"
                )
            } else {
                String::new()
            };
            bail!(
                "{}: `{key}` is a key of the spec's top level, but it stands below the [profiles.{profile}] header, so TOML reads it as the profile's: move it above the first [table] header{instead}",
                self.at(offset)
            );
        }
        if self.source.figure.is_none()
            && let Some((key, _)) = own.iter().find(|(k, _)| k.get_ref() == "panel")
        {
            bail!(
                "{}: `panel` is {{ of = \"{}/<name>.toml\", name = \"...\", title = \"...\" }}: the figure file, and the name and title its figures take as their prefix",
                self.at(key.span().start),
                panel::FOLDER
            );
        }
        Ok(())
    }

    /// `path:line` of `offset`.
    fn at(&self, offset: usize) -> String {
        self.source.at(offset)
    }

    /// `table` read into a protocol; a refused number is named by its key.
    fn read(&self, table: DeTable<'t>) -> Result<Protocol> {
        let de = toml::de::Deserializer::from(Spanned::new(self.span.clone(), table));
        let text = &self.source.text;
        Protocol::deserialize(de).map_err(|mut e| {
            let number = e
                .span()
                .and_then(|span| numbers::refused_number(text, &self.numbers, span, e.message()));
            // the key's own line, not the header of the table TOML points at
            if let Some(n) = &number
                && !self.source.in_layer(n.span.start)
            {
                let (_, line) = self.source.line(n.span.start);
                let shown = text.lines().nth(line - 1).unwrap_or_default();
                return anyhow!(
                    "{}:{line}: `{}` is refused: {}\n   |\n{line:>3} | {shown}\n   |",
                    self.source.path.display(),
                    n.key,
                    e.message()
                );
            }
            let refused = number.map_or_else(String::new, |n| {
                let (file, line) = self.source.line(n.span.start);
                format!("`{}` ({} line {line}) is refused: ", n.key, file.display())
            });
            match e.span() {
                // a value a file below the spec states: its file and line
                Some(span) if self.source.in_layer(span.start) => {
                    anyhow!("{}: {refused}{}", self.at(span.start), e.message())
                }
                _ => {
                    e.set_input(Some(self.source.own()));
                    anyhow!("{}: {refused}{e}", self.source.path.display())
                }
            }
        })
    }

    /// Profile `name`'s protocol: its table `over` laid over the top level.
    fn profile(&self, name: &str, header: &str, over: &DeTable<'t>) -> Result<Protocol> {
        if !over.contains_key("deviation") {
            bail!(
                "{header}: [profiles.{name}] must state its `deviation`: how this profile departs from the paper's protocol, and why"
            );
        }
        self.read(self.lay(over))
    }

    /// The top level with the table `over` laid over it key by key.
    fn lay(&self, over: &DeTable<'t>) -> DeTable<'t> {
        let mut laid = self.base.clone();
        for (key, value) in over {
            laid.remove(key.get_ref().as_ref());
            laid.insert(key.clone(), value.clone());
        }
        laid
    }
}

/// A drawn panel's keys (`panel`, `shared_from`, `id`, `title`, made from
/// its figure's `drawn_for`) put into its file's own top level.
///
/// # Errors
/// A panel file that states one of them.
fn lay_drawn<'t>(source: &Source, own: &mut DeTable<'t>, drawn: DeTable<'t>) -> Result<()> {
    for (key, value) in drawn {
        if let Some((written, _)) = own.get_key_value(key.get_ref().as_ref()) {
            bail!(
                "{}: `{}` is the figure's to write ({}, `drawn_for`): a drawn panel's file holds what that panel alone states",
                source.at(written.span().start),
                key.get_ref(),
                source.at(key.span().start)
            );
        }
        own.insert(key, value);
    }
    Ok(())
}

/// The files a spec is laid over, parsed from `texts` (as
/// [`Source::layer_text`] gives them), and every number they hold.
///
/// # Errors
/// TOML syntax, with the file and line.
fn parse_layers<'t>(
    source: &Source,
    texts: &'t [String],
) -> Result<(Vec<DeTable<'t>>, Vec<Number>)> {
    let mut layers = Vec::new();
    let mut numbers = Vec::new();
    for (text, layer) in texts.iter().zip(source.layers()) {
        let parsed = DeTable::parse(text).map_err(|e| {
            let at = e.span().map_or_else(
                || format!("{}", layer.path.display()),
                |s| source.at(s.start),
            );
            anyhow!("{at}: {}", e.message())
        })?;
        numbers.extend(numbers::numbers_of(parsed.get_ref()));
        layers.push(parsed.into_inner());
    }
    Ok((layers, numbers))
}

/// The profiles a spec declares: its own profile tables laid over its
/// shared files' (a value that is not a table is kept, for its error).
fn declared_profiles<'t>(
    shared: Option<DeTable<'t>>,
    own: Option<Spanned<DeValue<'t>>>,
) -> Option<Spanned<DeValue<'t>>> {
    let Some(shared) = shared else {
        return own;
    };
    let Some(own) = own else {
        return Some(Spanned::new(0..0, DeValue::Table(shared)));
    };
    let span = own.span();
    Some(Spanned::new(
        span,
        match own.into_inner() {
            DeValue::Table(own) => DeValue::Table(panel::lay_profiles(shared, own)),
            other => other,
        },
    ))
}

/// The spec's own profile tables (`profiles`), each profile that names
/// shared files (`shared_from`) laid over them: their keys under the
/// profile's own.
///
/// # Errors
/// A profile's shared file that names shared files itself (a top-level key
/// in it is refused with the profile's other keys).
fn lay_profiles_shared<'t>(
    source: &Source,
    mut profiles: Spanned<DeValue<'t>>,
    shared: Vec<(String, DeTable<'t>)>,
) -> Result<Spanned<DeValue<'t>>> {
    let DeValue::Table(tables) = profiles.get_mut() else {
        return Ok(profiles);
    };
    for (name, layer) in shared {
        panel::refuse_keys(source, &layer, &["shared_from"], panel::NESTED_SHARED)?;
        let Some(DeValue::Table(own)) = tables.get_mut(name.as_str()).map(|t| t.get_mut()) else {
            continue;
        };
        let mut laid = layer;
        panel::lay_profile_keys(&mut laid, std::mem::take(own));
        *own = laid;
    }
    for (_, table) in tables.iter_mut() {
        if let DeValue::Table(t) = table.get_mut() {
            t.remove("shared_from");
        }
    }
    Ok(profiles)
}

/// Every profile table (the spec's and its shared files') refused when it
/// states a key only the top level takes.
fn refuse_top_level_keys(source: &Source, profiles: &DeValue<'_>) -> Result<()> {
    for (name, table) in profiles.as_table().into_iter().flatten() {
        if let Some(t) = table.get_ref().as_table() {
            let why = format!(
                "a key of the spec's top level, not of [profiles.{}]",
                name.get_ref()
            );
            panel::refuse_keys(source, t, &TOP_LEVEL_ONLY, &why)?;
        }
    }
    Ok(())
}

/// Keys only a profile takes: the golden check's tolerance, and parameters
/// set on the top level's methods by label.
const PROFILE_ONLY: [&str; 2] = ["tolerance", "method_params"];

/// Keys only the spec's top level takes: one written under a
/// `[profiles.x]` header belongs to that profile in TOML, and serde's
/// "unknown field" would not say why.
const TOP_LEVEL_ONLY: [&str; 15] = [
    "id",
    "panel",
    "title",
    "paper",
    "seed",
    "shared_trial_seeds",
    "centre",
    "metrics",
    "figures",
    "claims",
    "readings",
    "reported",
    "profiles",
    "methods",
    "methods_from",
];

/// The first top-level-only key a profile table holds: (key, profile, offset).
fn top_level_key_in_a_profile(doc: &DeTable<'_>) -> Option<(String, String, usize)> {
    let profiles = doc.get("profiles")?.get_ref().as_table()?;
    profiles.iter().find_map(|(name, table)| {
        let (key, _) = table
            .get_ref()
            .as_table()?
            .iter()
            .find(|(k, _)| TOP_LEVEL_ONLY.contains(&k.get_ref().as_ref()))?;
        Some((
            key.get_ref().to_string(),
            name.get_ref().to_string(),
            key.span().start,
        ))
    })
}
