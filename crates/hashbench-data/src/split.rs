//! Splits of a dataset into queries, database, training set and a labelled
//! subset of the training set: drawn with a seed, or read from index files.
//!
//! Every count is a seeded random draw from its pool (never the first items in
//! file order, which would follow a file sorted by class): queries from the
//! items outside a named database part, the database from the non-queries,
//! the training set from the database, the labelled items from the training
//! set. A split is a pure function of (spec, dataset parts, seed).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::{DataError, Result};

/// A count of items, or a named part of the dataset, or (for the database) all
/// the remaining items, or (for training) the database itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Count {
    /// That many items drawn at random (at least 1).
    Items(usize),
    /// A keyword (`"rest"`, `"database"`) or a dataset part name (`"test"`).
    Named(String),
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a count of items (at least 1) or a name (\"rest\", \"database\" or a part)",
                )
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Count, E> {
                match usize::try_from(v) {
                    Ok(n) if n >= 1 => Ok(Count::Items(n)),
                    _ => Err(E::custom(format!(
                        "{v} items: a count is at least 1 (or a name: \"rest\", \"database\" or a part)"
                    ))),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Count, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Count, E> {
                Ok(Count::Named(v.to_string()))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// Index files of a fixed split: one 0-based dataset index per line (blank
/// lines and `#` comments ignored), as published protocols distribute them.
/// Relative paths are resolved against the spec's folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitFiles {
    /// Query items, in query order.
    #[serde(deserialize_with = "crate::paths::relative")]
    pub queries: PathBuf,
    /// Database items, in database order (the order index ties follow).
    #[serde(deserialize_with = "crate::paths::relative")]
    pub database: PathBuf,
    /// Training items (default: the database).
    #[serde(default, deserialize_with = "crate::paths::relative_opt")]
    pub training: Option<PathBuf>,
    /// Labelled training items (default: none).
    #[serde(default, deserialize_with = "crate::paths::relative_opt")]
    pub labelled: Option<PathBuf>,
}

/// How to split a dataset, as written in a spec's `split` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSpec {
    /// Queries: a random count, or a part name (not with `files`).
    pub queries: Option<Count>,
    /// Database: `"rest"` (every non-query item), a random count of the rest,
    /// or a part name.
    #[serde(default = "rest")]
    pub database: Count,
    /// Training set: `"database"`, or a random count drawn from the database
    /// (from the part `training_from` when given).
    #[serde(default = "database")]
    pub training: Count,
    /// A dataset part, apart from the queries and the database, that the
    /// training count is drawn from (ANN_SIFT10K's `learn` vectors).
    #[serde(default)]
    pub training_from: Option<String>,
    /// Training items whose labels the (semi-)supervised methods may read,
    /// drawn at random from the training set.
    #[serde(default)]
    pub labelled: usize,
    /// Draw a fresh split for every trial (seeded by the trial index), as in
    /// "5 random 90/10 splits"; then every method runs `trials` times.
    #[serde(default)]
    pub per_trial: bool,
    /// A fixed split read from index files instead of drawn.
    pub files: Option<SplitFiles>,
}

fn rest() -> Count {
    Count::Named("rest".into())
}

fn database() -> Count {
    Count::Named("database".into())
}

/// Item indices of each role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// Query items.
    pub queries: Vec<usize>,
    /// Database items.
    pub database: Vec<usize>,
    /// Training items.
    pub training: Vec<usize>,
    /// Labelled training items (dataset indices, a subset of `training`).
    pub labelled: Vec<usize>,
}

impl SplitSpec {
    /// Checks the combination of fields, before any data is read.
    ///
    /// # Errors
    /// [`DataError::Invalid`] naming the field.
    pub fn validate(&self) -> Result<()> {
        let invalid = |m: &str| Err(DataError::Invalid(m.to_string()));
        match (&self.queries, &self.files) {
            (None, None) => invalid("split: give `queries` (a count or a part) or `files`"),
            (Some(_), Some(_)) => {
                invalid("split: `files` fixes every role; remove `queries` (and counts)")
            }
            (None, Some(_))
                if self.database != rest()
                    || self.training != database()
                    || self.training_from.is_some()
                    || self.labelled != 0
                    || self.per_trial =>
            {
                invalid(
                    "split: with `files`, the roles come from the files; remove database, training, training_from, labelled and per_trial",
                )
            }
            _ if self.training_from.is_some() && !matches!(self.training, Count::Items(_)) => {
                invalid("split: `training_from` draws a count; give `training` as a number")
            }
            _ => Ok(()),
        }
    }

    /// Builds the split of `n` items with named `parts`, drawing with `seed`;
    /// index files are resolved against `base`.
    ///
    /// # Errors
    /// [`DataError::Invalid`] when a count exceeds what is available, a name is
    /// unknown or parts overlap (naming the field), or an index file is bad
    /// (naming the file and line).
    pub fn split(
        &self,
        n: usize,
        parts: &[(String, Range<usize>)],
        seed: u64,
        base: &Path,
    ) -> Result<Split> {
        self.validate()?;
        match (&self.queries, &self.files) {
            (_, Some(files)) => files.read(n, base),
            (Some(queries), None) => self.draw(queries, n, parts, seed),
            (None, None) => unreachable!("validate requires queries or files"),
        }
    }

    /// A seeded split: the queries, then the database, then the training
    /// items and the labelled ones are drawn in that order from one RNG.
    fn draw(
        &self,
        queries: &Count,
        n: usize,
        parts: &[(String, Range<usize>)],
        seed: u64,
    ) -> Result<Split> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let named_database = match &self.database {
            Count::Named(name) if name != "rest" => Some(part_items(parts, "database", name)?),
            _ => None,
        };
        let training_part = match &self.training_from {
            Some(name) => Some(part_items(parts, "training_from", name)?),
            None => None,
        };
        let queries = match queries {
            Count::Items(k) => {
                let pool =
                    self.query_pool(*k, n, named_database.as_deref(), training_part.as_deref())?;
                draw_from(&mut rng, "queries", *k, &pool)?
            }
            Count::Named(name) => part_items(parts, "queries", name)?,
        };
        let mut is_query = vec![false; n];
        queries.iter().for_each(|&q| is_query[q] = true);
        let mut database = self.draw_database(
            &mut rng,
            n,
            &is_query,
            named_database,
            training_part.as_deref(),
        )?;
        database.sort_unstable();
        let mut training =
            self.draw_training(&mut rng, &is_query, &database, training_part.as_deref())?;
        training.sort_unstable();
        for (role, items) in [
            ("queries", &queries),
            ("database", &database),
            ("training", &training),
        ] {
            if items.is_empty() {
                return Err(DataError::Invalid(format!(
                    "split: no items in the {role} (an empty named part?): every statistic would be over nothing"
                )));
            }
        }
        let mut labelled = draw_from(&mut rng, "labelled", self.labelled, &training)?;
        labelled.sort_unstable();
        Ok(Split {
            queries,
            database,
            training,
            labelled,
        })
    }

    /// The items counted queries are drawn from: never a named database
    /// part or the training part.
    fn query_pool(
        &self,
        k: usize,
        n: usize,
        named_database: Option<&[usize]>,
        training_part: Option<&[usize]>,
    ) -> Result<Vec<usize>> {
        let mut outside = vec![true; n];
        named_database
            .iter()
            .chain(training_part.iter())
            .flat_map(|items| items.iter())
            .for_each(|&i| outside[i] = false);
        let pool: Vec<usize> = (0..n).filter(|&i| outside[i]).collect();
        if pool.len() < k && pool.len() < n {
            let mut parts_out: Vec<String> = Vec::new();
            if let (Count::Named(db), Some(_)) = (&self.database, named_database) {
                parts_out.push(format!("the database part \"{db}\""));
            }
            if let Some(t) = &self.training_from {
                parts_out.push(format!("the training part \"{t}\""));
            }
            return Err(DataError::Invalid(format!(
                "split.queries = {k}, but only {} of the {n} items lie outside {}: counted queries never come from a named part (database = \"rest\" takes every item that is not a query)",
                pool.len(),
                parts_out.join(" and ")
            )));
        }
        Ok(pool)
    }

    /// The database: its named part (sharing no item with the queries), or
    /// a count of (or all of) the items that are neither queries nor in the
    /// training part.
    fn draw_database(
        &self,
        rng: &mut ChaCha8Rng,
        n: usize,
        is_query: &[bool],
        named_database: Option<Vec<usize>>,
        training_part: Option<&[usize]>,
    ) -> Result<Vec<usize>> {
        let mut in_training_part = vec![false; n];
        training_part
            .iter()
            .flat_map(|items| items.iter())
            .for_each(|&i| in_training_part[i] = true);
        let rest: Vec<usize> = (0..n)
            .filter(|&i| !is_query[i] && !in_training_part[i])
            .collect();
        Ok(match (&self.database, named_database) {
            (_, Some(db)) => {
                if let Some(&q) = db.iter().find(|&&i| is_query[i]) {
                    return Err(DataError::Invalid(format!(
                        "split: the queries and the database part share item {q}"
                    )));
                }
                db
            }
            (Count::Items(k), None) => draw_from(rng, "database", *k, &rest)?,
            (Count::Named(_), None) => rest,
        })
    }

    /// The training items: a count from the training part (sharing no item
    /// with the queries or the database), the database itself, or a count of
    /// it.
    fn draw_training(
        &self,
        rng: &mut ChaCha8Rng,
        is_query: &[bool],
        database: &[usize],
        training_part: Option<&[usize]>,
    ) -> Result<Vec<usize>> {
        Ok(match (&self.training, &self.training_from) {
            (Count::Items(k), Some(name)) => {
                let pool = training_part.expect("read with training_from");
                if let Some(&i) = pool.iter().find(|&&i| is_query[i]) {
                    return Err(DataError::Invalid(format!(
                        "split: the queries and the training part `{name}` share item {i}"
                    )));
                }
                if let Some(i) = pool.iter().find(|i| database.binary_search(i).is_ok()) {
                    return Err(DataError::Invalid(format!(
                        "split: the database and the training part `{name}` share item {i}"
                    )));
                }
                draw_from(rng, "training", *k, pool)?
            }
            (_, Some(_)) => unreachable!("validate requires a count with training_from"),
            (Count::Named(s), None) if s == "database" => database.to_vec(),
            (Count::Items(k), None) => draw_from(rng, "training", *k, database)?,
            (Count::Named(other), None) => {
                return Err(DataError::Invalid(format!(
                    "split.training = \"{other}\": use \"database\" or a count"
                )));
            }
        })
    }
}

/// The items of the dataset's part `name`, named by the split's `field`.
fn part_items(parts: &[(String, Range<usize>)], field: &str, name: &str) -> Result<Vec<usize>> {
    parts
        .iter()
        .find(|(p, _)| p == name)
        .map(|(_, r)| r.clone().collect())
        .ok_or_else(|| {
            let known: Vec<String> = parts.iter().map(|(p, _)| format!("\"{p}\"")).collect();
            let keyword = match field {
                "database" => "\"rest\" (every item not a query), a count or ",
                "queries" => "a count or ",
                _ => "",
            };
            DataError::Invalid(format!(
                "split.{field} = \"{name}\": this dataset has no such part; use {keyword}one of its parts ({})",
                if known.is_empty() { "it has none".to_string() } else { known.join(", ") }
            ))
        })
}

/// `k` items of `pool` drawn without replacement (a partial shuffle of a
/// copy), named by the split's `field` when the pool is too small.
fn draw_from(rng: &mut ChaCha8Rng, field: &str, k: usize, pool: &[usize]) -> Result<Vec<usize>> {
    if k > pool.len() {
        return Err(DataError::Invalid(format!(
            "split.{field} = {k}, but only {} items are available",
            pool.len()
        )));
    }
    let mut pool = pool.to_vec();
    let (picked, _) = pool.partial_shuffle(rng, k);
    Ok(picked.to_vec())
}

impl SplitFiles {
    /// Reads and checks the index files against a dataset of `n` items.
    ///
    /// # Errors
    /// [`DataError::Invalid`] naming the file and line of an index out of
    /// range, a duplicate, a query also in the database, or a labelled item
    /// outside the training set.
    pub fn read(&self, n: usize, base: &Path) -> Result<Split> {
        let queries = read_indices(base, &self.queries, n)?;
        let database_path = base.join(&self.database);
        let database = read_indices(base, &self.database, n)?;
        let query_line: HashMap<usize, usize> = queries.iter().map(|&(i, l)| (i, l)).collect();
        if let Some(&(i, line)) = database.iter().find(|(i, _)| query_line.contains_key(i)) {
            return Err(DataError::Invalid(format!(
                "{}:{line}: item {i} is also a query ({}:{})",
                database_path.display(),
                base.join(&self.queries).display(),
                query_line[&i]
            )));
        }
        let training = match &self.training {
            Some(p) => read_indices(base, p, n)?,
            None => database.clone(),
        };
        let labelled = match &self.labelled {
            Some(p) => {
                let path = base.join(p);
                let labelled = read_indices(base, p, n)?;
                let in_training: std::collections::HashSet<usize> =
                    training.iter().map(|&(i, _)| i).collect();
                if let Some(&(i, line)) = labelled.iter().find(|(i, _)| !in_training.contains(i)) {
                    return Err(DataError::Invalid(format!(
                        "{}:{line}: labelled item {i} is not a training item",
                        path.display()
                    )));
                }
                labelled
            }
            None => Vec::new(),
        };
        let ids = |v: Vec<(usize, usize)>| v.into_iter().map(|(i, _)| i).collect();
        Ok(Split {
            queries: ids(queries),
            database: ids(database),
            training: ids(training),
            labelled: ids(labelled),
        })
    }
}

/// The (index, line) pairs of the index file `rel` in the spec's folder
/// `base` (inside it: [`crate::paths::read_inside`]), in file order.
fn read_indices(base: &Path, rel: &Path, n: usize) -> Result<Vec<(usize, usize)>> {
    let path = &base.join(rel);
    // an index per line: a line per item and room for comments
    let bound = 64 * (n as u64 + 1) + (1 << 20);
    let text = crate::paths::read_inside(base, rel, bound).map_err(|e| DataError::io(path, e))?;
    let mut seen: HashMap<usize, usize> = HashMap::new();
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line_no = k + 1;
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let at = || format!("{}:{line_no}", path.display());
        let i: usize = content.parse().map_err(|_| {
            DataError::Invalid(format!("{}: `{content}` is not a 0-based item index", at()))
        })?;
        if i >= n {
            return Err(DataError::Invalid(format!(
                "{}: index {i} is out of range (the dataset has {n} items)",
                at()
            )));
        }
        if let Some(first) = seen.insert(i, line_no) {
            return Err(DataError::Invalid(format!(
                "{}: index {i} repeats line {first}",
                at()
            )));
        }
        out.push((i, line_no));
    }
    if out.is_empty() {
        return Err(DataError::Invalid(format!(
            "{}: no indices",
            path.display()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
