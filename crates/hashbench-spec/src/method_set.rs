//! Method sets: the `[[methods]]` tables several specs share, written once in
//! a file under a paper's `method-sets/` folder and named by a spec's
//! `methods_from` (the panels of one figure on several data sets).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use hashbench_data::paths::read_inside;
use serde::Deserialize;
use toml::Spanned;

use super::{line_of, place};

/// The folder name under `experiments/<paper>/` that holds method sets; the
/// spec listing passes over it.
pub const FOLDER: &str = "method-sets";

/// The largest method-set file read.
const MAX_BYTES: u64 = 1 << 20;

/// A method-set file as read: its path, its text (for error lines and the
/// spec's checksum) and its tables.
#[derive(Debug)]
pub(super) struct MethodSet {
    pub path: PathBuf,
    pub text: String,
    pub methods: Vec<Spanned<toml::Table>>,
}

/// What a method-set file holds: `[[methods]]` tables and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetFile {
    methods: Vec<Spanned<toml::Table>>,
}

impl MethodSet {
    /// Reads the set `from` names, relative to the folder of the spec at
    /// `spec` (`at`: the spec's `path:line` of `methods_from`, for errors).
    ///
    /// # Errors
    /// A missing, oversized or malformed file, or one without methods.
    pub fn load(spec: &Path, at: &str, from: &str) -> Result<MethodSet> {
        let inside = Path::new(from).strip_prefix(FOLDER).is_ok_and(|rest| {
            rest.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
        });
        if !inside {
            bail!(
                "{at}: methods_from = \"{from}\": a method set is a file of the paper's {FOLDER}/ folder (`methods_from = \"{FOLDER}/<name>.toml\"`)"
            );
        }
        let folder_of_spec = crate::folder_of(spec);
        let path = folder_of_spec.join(from);
        let text = read_inside(folder_of_spec, Path::new(from), MAX_BYTES).with_context(|| {
            format!(
                "{at}: methods_from = \"{from}\": reading {}",
                path.display()
            )
        })?;
        let file: SetFile = toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map_or_else(String::new, |s| format!(":{}", line_of(&text, s.start)));
            anyhow!(
                "{}{line}: {} (method set of {at})",
                path.display(),
                e.message()
            )
        })?;
        if file.methods.is_empty() {
            bail!(
                "{}: a method set needs at least one [[methods]] table",
                path.display()
            );
        }
        Ok(MethodSet {
            path,
            text,
            methods: file.methods,
        })
    }

    /// `path:line` of a byte offset of the file.
    pub fn at(&self, offset: usize) -> String {
        place(&self.path, &self.text, offset)
    }
}
