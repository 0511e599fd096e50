//! A spec's TOML document parsed once, and each profile's protocol made
//! from it: the profile's table laid over the top level key by key (a key
//! the profile states replaces the top level's, whatever it is), then read
//! into the one typed form, [`Protocol`]. Values keep the spans of the lines
//! they were written on, in the profile or above it, so a syntax or schema
//! error names its line.

use std::collections::BTreeMap;
use std::ops::Range;

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

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
    let figure_text = source.figure_text();
    let (doc, declared) = Document::parse(source, figure_text.as_deref())?;
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

/// A spec's document: its top level without `profiles` (a panel's laid
/// over its figure's), and every number it holds (for the refusals that
/// name a number's key).
struct Document<'t> {
    source: &'t Source,
    span: Range<usize>,
    base: DeTable<'t>,
    numbers: Vec<Number>,
}

impl<'t> Document<'t> {
    /// The parsed document and its `profiles` value, every number finite
    /// and every key on its level; `figure_text`: a panel's figure, as
    /// [`Source::figure_text`] gives it.
    fn parse(
        source: &'t Source,
        figure_text: Option<&'t str>,
    ) -> Result<(Self, Option<Spanned<DeValue<'t>>>)> {
        let parsed = DeTable::parse(source.own()).map_err(|mut e| {
            e.set_input(Some(source.own()));
            anyhow!("{}: {e}", source.path.display())
        })?;
        let mut numbers = numbers::numbers_of(parsed.get_ref());
        let figure = match figure_text {
            None => None,
            Some(text) => {
                let figure = DeTable::parse(text).map_err(|e| {
                    let at = e
                        .span()
                        .map_or_else(|| source.at(source.own().len() + 1), |s| source.at(s.start));
                    anyhow!("{at}: {}", e.message())
                })?;
                numbers.extend(numbers::numbers_of(figure.get_ref()));
                numbers.sort_by_key(|n| n.span.start);
                Some(figure.into_inner())
            }
        };
        let span = parsed.span();
        let mut doc = Document {
            source,
            span,
            base: DeTable::default(),
            numbers,
        };
        if let Some(n) = numbers::first_non_finite(&doc.numbers) {
            bail!(
                "{}: `{}` = {}: every number of a spec is finite (no key takes NaN or an infinity)",
                doc.at(n.span.start),
                n.key,
                n.text
            );
        }
        if let Some((key, profile, offset)) = top_level_key_in_a_profile(parsed.get_ref()) {
            let instead = if key == "methods" {
                format!(
                    " (a profile sets its methods' parameters by label in [profiles.{profile}.method_params.\"LABEL\"])"
                )
            } else {
                String::new()
            };
            bail!(
                "{}: `{key}` is a key of the spec's top level, but it stands below the [profiles.{profile}] header, so TOML reads it as the profile's: move it above the first [table] header{instead}",
                doc.at(offset)
            );
        }
        doc.base = parsed.into_inner();
        let declared = doc.base.remove("profiles");
        match figure {
            Some(figure) => doc.base = panel::lay(source, std::mem::take(&mut doc.base), figure)?,
            None => {
                if let Some((key, _)) = doc.base.iter().find(|(k, _)| k.get_ref() == "panel") {
                    bail!(
                        "{}: `panel` is {{ of = \"{}/<name>.toml\", name = \"...\", title = \"...\" }}: the figure file, and the name and title its figures take as their prefix",
                        doc.at(key.span().start),
                        panel::FOLDER
                    );
                }
            }
        }
        if let Some((key, _)) = doc
            .base
            .iter()
            .find(|(k, _)| PROFILE_ONLY.contains(&k.get_ref().as_ref()))
        {
            bail!(
                "{}: `{}` is a profile's key: move it into the profile it applies to, e.g. [profiles.ci]",
                doc.at(key.span().start),
                key.get_ref()
            );
        }
        Ok((doc, declared))
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
            let refused = e
                .span()
                .and_then(|span| numbers::refused_number(text, &self.numbers, span, e.message()))
                .map_or_else(String::new, |n| {
                    let (file, line) = self.source.line(n.span.start);
                    let file = if self.source.in_figure(n.span.start) {
                        format!("{} ", file.display())
                    } else {
                        String::new()
                    };
                    format!("`{}` ({file}line {line}) is refused: ", n.key)
                });
            match e.span() {
                // a value the figure file states: its file and line
                Some(span) if self.source.in_figure(span.start) => {
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
        let mut laid = self.base.clone();
        for (key, value) in over {
            laid.remove(key.get_ref().as_ref());
            laid.insert(key.clone(), value.clone());
        }
        self.read(laid)
    }
}

/// Keys only a profile takes: the golden check's tolerance, and parameters
/// set on the top level's methods by label.
const PROFILE_ONLY: [&str; 2] = ["tolerance", "method_params"];

/// Keys only the spec's top level takes: one written under a
/// `[profiles.x]` header belongs to that profile in TOML, and serde's
/// "unknown field" would not say why.
const TOP_LEVEL_ONLY: [&str; 14] = [
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
