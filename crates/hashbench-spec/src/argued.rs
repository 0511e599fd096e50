//! Readings argued once: a question the paper's text leaves open (what a
//! radius retrieves, how an empty ball counts) is argued in one file of the
//! paper's `readings/` folder, with the default the claims are written
//! under and each other reading by id:
//!
//! ```toml
//! default = "the top k within the radius"
//! argument = """(a) the question (b) the default's case (c) the other's (d) the weighing"""
//!
//! [readings]
//! whole-ball = "the whole Hamming ball"
//! ```
//!
//! and each spec that runs a reading names it there instead of restating
//! the text: `[[readings]] id = "whole-ball"`, `argued_in =
//! "readings/retrieved-set.toml"`, with its own `swap` (what the reading
//! changes in this experiment). The reading's `reading`, `default` and
//! `argument` are the file's, with their file and line.

use anyhow::{Result, bail};
use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

use crate::panel::Source;

/// The keys a readings file holds.
const FILE_KEYS: [&str; 3] = ["default", "argument", "readings"];

/// The keys a reading takes from its file, which it may not state itself.
const ARGUED_KEYS: [&str; 3] = ["reading", "default", "argument"];

/// Every reading of `laid` (the spec's laid top level) that names its file
/// (`argued_in`) given that file's `reading`, `default` and `argument`;
/// `files`: the readings files as parsed, in [`Source::argued`]'s order.
///
/// # Errors
/// A readings file with another key or without its default, argument or
/// readings; a reading the file does not argue; a reading that states a
/// text its file argues; an `argued_in` that is not a string.
pub(crate) fn fill<'t>(
    source: &Source,
    laid: &mut DeTable<'t>,
    files: Vec<DeTable<'t>>,
) -> Result<()> {
    for ((name, layer), file) in source.argued.iter().zip(&files) {
        let path = layer.path.display();
        if let Some((key, _)) = file
            .iter()
            .find(|(k, _)| !FILE_KEYS.contains(&k.get_ref().as_ref()))
        {
            bail!(
                "{}: `{}`: a readings file holds `default`, `argument` and a [readings] table of each other reading by id ({name})",
                source.at(key.span().start),
                key.get_ref()
            );
        }
        if let Some(missing) = FILE_KEYS.iter().find(|k| !file.contains_key(**k)) {
            bail!(
                "{path}: a readings file must state `{missing}` (named by `argued_in = \"{name}\"`)"
            );
        }
    }
    let Some(readings) = laid.get_mut("readings") else {
        return Ok(());
    };
    let DeValue::Array(list) = readings.get_mut() else {
        return Ok(());
    };
    for item in list.iter_mut() {
        let DeValue::Table(reading) = item.get_mut() else {
            continue;
        };
        let Some(argued_in) = reading.remove("argued_in") else {
            continue;
        };
        let at = source.at(argued_in.span().start);
        let DeValue::String(name) = argued_in.get_ref() else {
            unreachable!("a name that is not a string is refused when the source is read")
        };
        let index = source
            .argued
            .iter()
            .position(|(n, _)| n == name.as_ref())
            .expect("every argued_in is read with the source");
        let file = &files[index];
        let id = match reading.get("id").map(|v| v.get_ref()) {
            Some(DeValue::String(id)) => id.to_string(),
            _ => bail!(
                "{at}: a reading argued in `{name}` names its `id`, one of the file's [readings]"
            ),
        };
        if let Some((key, _)) = reading
            .iter()
            .find(|(k, _)| ARGUED_KEYS.contains(&k.get_ref().as_ref()))
        {
            bail!(
                "{}: `{}` is argued in {name}: a reading that names its file takes its texts from it",
                source.at(key.span().start),
                key.get_ref()
            );
        }
        let listed = stated(file, "readings");
        let Some(others) = listed.get_ref().as_table() else {
            bail!(
                "{}: `readings` is a table of each other reading by id",
                source.at(listed.span().start)
            );
        };
        let Some(text) = others.get(id.as_str()) else {
            let argued: Vec<&str> = others.keys().map(|k| k.get_ref().as_ref()).collect();
            bail!(
                "{at}: {name} argues no reading `{id}` (it argues: {})",
                argued.join(", ")
            );
        };
        // each key where its value is written, for `show`'s file and line
        for (key, value) in [
            ("reading", text),
            ("default", stated(file, "default")),
            ("argument", stated(file, "argument")),
        ] {
            reading.insert(
                Spanned::new(value.span(), DeString::Borrowed(key)),
                value.clone(),
            );
        }
    }
    Ok(())
}

/// The value of `key`, which every readings file states (checked first).
fn stated<'a, 't>(file: &'a DeTable<'t>, key: &str) -> &'a Spanned<DeValue<'t>> {
    file.get(key)
        .expect("a readings file's keys are checked first")
}

#[cfg(test)]
mod tests;
