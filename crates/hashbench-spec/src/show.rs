//! `hashbench show`: a spec's protocol under one profile, merged from every
//! file it is laid over (its figure, its shared files, its method set, the
//! profile's table), each key with the file and line it comes from. The
//! text is TOML: read back as a spec, it plans as the spec does (tested over
//! every shipped spec and profile).

use std::fmt::Write;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::{PAPER_PROFILE, Spec, document};

/// The order top-level keys are shown in (the protocol's), the rest after.
const ORDER: [&str; 12] = [
    "id",
    "title",
    "paper",
    "deviation",
    "seed",
    "dataset",
    "transform",
    "split",
    "bits",
    "trials",
    "ground_truth",
    "tuned_for",
];

/// The keys only a profile states, shown under its `[profiles.<name>]`.
const PROFILE_KEYS: [&str; 3] = ["deviation", "tolerance", "method_params"];

/// Where the key at a byte offset of the spec's text was written.
type At<'a> = &'a dyn Fn(usize) -> String;

impl Spec {
    /// The protocol of `profile` as one TOML document, every key followed
    /// by `# path:line` of the file it comes from.
    ///
    /// # Errors
    /// A profile the spec does not declare.
    pub fn show(&self, profile: &str) -> Result<String> {
        if self.protocol(profile).is_none() {
            bail!(
                "{}: no profile `{profile}` (it has {})",
                self.path.display(),
                self.profiles().join(", ")
            );
        }
        document::with_laid(&self.source, profile, |laid| {
            let values = toml::Table::deserialize(toml::de::Deserializer::from(Spanned::new(
                0..0,
                laid.clone(),
            )))
            .context("the merged protocol as TOML")?;
            let at = |offset: usize| self.source.at(offset);
            let mut out = format!(
                "# {} [{profile}]: the protocol merged from every file it is laid over; after each key, the file and line it comes from\n\n",
                self.id()
            );
            let own_keys = |k: &str| profile == PAPER_PROFILE || !PROFILE_KEYS.contains(&k);
            write_table(&mut out, "", laid, &values, &at, &own_keys);
            if let Some(set) = &self.method_set {
                let _ = writeln!(out, "\n# methods from {}", set.path.display());
                for table in &set.methods {
                    let place = set.at(table.span().start);
                    out.push_str("\n[[methods]]\n");
                    for (key, value) in table.get_ref() {
                        let _ = writeln!(out, "{} = {value}  # {place}", quoted(key));
                    }
                }
            }
            if profile != PAPER_PROFILE {
                let _ = writeln!(out, "\n[profiles.{}]", quoted(profile));
                let path = format!("profiles.{}", quoted(profile));
                write_table(&mut out, &path, laid, &values, &at, &|k| {
                    PROFILE_KEYS.contains(&k)
                });
            }
            Ok(out)
        })
    }
}

/// The keys of `table` that `keep` accepts: values first (`key = value  #
/// place`), then each table of tables (`method_params`) and each list of
/// tables as sections under `path`.
fn write_table(
    out: &mut String,
    path: &str,
    spans: &DeTable<'_>,
    values: &toml::Table,
    at: At<'_>,
    keep: &dyn Fn(&str) -> bool,
) {
    let rank = |k: &str| ORDER.iter().position(|o| *o == k).unwrap_or(ORDER.len());
    let mut kept: Vec<_> = spans
        .iter()
        .filter(|(k, _)| keep(k.get_ref()) && k.get_ref() != "methods_from")
        .collect();
    kept.sort_by_key(|(k, _)| rank(k.get_ref()));
    let mut sections = Vec::new();
    for (key, value) in kept {
        let name = key.get_ref().as_ref();
        let Some(v) = values.get(name) else { continue };
        if is_section(name, value.get_ref()) {
            sections.push((key, value));
            continue;
        }
        match (name, value.get_ref(), v) {
            // a deviation the layers added to: each text with its own place
            ("deviation", DeValue::Array(items), toml::Value::Array(texts)) => {
                let _ = writeln!(out, "deviation = [");
                for (item, text) in items.iter().zip(texts) {
                    let _ = writeln!(out, "    {text},  # {}", at(item.span().start));
                }
                let _ = writeln!(out, "]");
            }
            _ => {
                let _ = writeln!(out, "{} = {v}  # {}", quoted(name), at(key.span().start));
            }
        }
    }
    for (key, value) in sections {
        let name = key.get_ref().as_ref();
        let inner = join(path, &quoted(name));
        match (value.get_ref(), values.get(name)) {
            (DeValue::Array(items), Some(toml::Value::Array(vs))) => {
                for (item, v) in items.iter().zip(vs) {
                    if let (DeValue::Table(t), toml::Value::Table(vt)) = (item.get_ref(), v) {
                        let _ = writeln!(out, "\n[[{inner}]]");
                        write_table(out, &inner, t, vt, at, &|_| true);
                    }
                }
            }
            (DeValue::Table(tables), Some(toml::Value::Table(vs))) => {
                for (label, t) in tables {
                    let label = label.get_ref().as_ref();
                    if let (DeValue::Table(t), Some(toml::Value::Table(vt))) =
                        (t.get_ref(), vs.get(label))
                    {
                        let _ = writeln!(out, "\n[{inner}.{}]", quoted(label));
                        write_table(out, &join(&inner, &quoted(label)), t, vt, at, &|_| true);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether `value` (at key `name`) is written as sections: a list of tables,
/// or the profile's method parameters by label.
fn is_section(name: &str, value: &DeValue<'_>) -> bool {
    match value {
        DeValue::Array(items) => {
            !items.is_empty()
                && items
                    .iter()
                    .all(|i| matches!(i.get_ref(), DeValue::Table(_)))
        }
        DeValue::Table(_) => name == "method_params",
        _ => false,
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `key` as a TOML key: bare when it can be, else quoted.
fn quoted(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        key.to_string()
    } else {
        toml::Value::String(key.to_string()).to_string()
    }
}

#[cfg(test)]
mod tests;
