//! Seeded splits of a dataset into queries, database, training set and a
//! labelled subset of the training set. Every random choice is a prefix of one
//! seeded shuffle, so a split is a pure function of (spec, dataset size, seed).

use std::ops::Range;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::{DataError, Result};

/// A count of items, or a named part of the dataset, or (for the database) all
/// the remaining items, or (for training) the database itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Count {
    /// That many items drawn at random.
    Items(usize),
    /// A keyword (`"rest"`, `"database"`) or a dataset part name (`"test"`).
    Named(String),
}

/// How to split a dataset, as written in a spec's `[split]` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSpec {
    /// Queries: a random count, or a part name.
    pub queries: Count,
    /// Database: `"rest"` (every non-query item), a random count of the rest,
    /// or a part name.
    #[serde(default = "rest")]
    pub database: Count,
    /// Training set: `"database"`, or a random count drawn from the database.
    #[serde(default = "database")]
    pub training: Count,
    /// Training items whose labels the (semi-)supervised methods may read.
    #[serde(default)]
    pub labelled: usize,
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
    /// Training items (a subset of the database, or equal to it).
    pub training: Vec<usize>,
    /// Labelled training items (indices into the dataset, a subset of `training`).
    pub labelled: Vec<usize>,
}

impl SplitSpec {
    /// Builds the split of `n` items with named `parts`, drawing with `seed`.
    ///
    /// # Errors
    /// [`DataError::Invalid`] when a count exceeds what is available or a name is
    /// unknown; the message names the field.
    pub fn split(&self, n: usize, parts: &[(String, Range<usize>)], seed: u64) -> Result<Split> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let part = |field: &str, name: &str| -> Result<Vec<usize>> {
            parts
                .iter()
                .find(|(p, _)| p == name)
                .map(|(_, r)| r.clone().collect())
                .ok_or_else(|| {
                    let known: Vec<&str> = parts.iter().map(|(p, _)| p.as_str()).collect();
                    DataError::Invalid(format!(
                        "split.{field} = \"{name}\": no such part (parts: {})",
                        known.join(", ")
                    ))
                })
        };
        let too_many = |field: &str, k: usize, avail: usize| {
            DataError::Invalid(format!(
                "split.{field} = {k}, but only {avail} items are available"
            ))
        };
        let mut all: Vec<usize> = (0..n).collect();
        all.shuffle(&mut rng);
        let queries = match &self.queries {
            Count::Items(k) if *k > n => return Err(too_many("queries", *k, n)),
            Count::Items(k) => all[..*k].to_vec(),
            Count::Named(name) => part("queries", name)?,
        };
        let is_query = {
            let mut m = vec![false; n];
            queries.iter().for_each(|&q| m[q] = true);
            m
        };
        let rest: Vec<usize> = all.iter().copied().filter(|&i| !is_query[i]).collect();
        let mut database = match &self.database {
            Count::Named(s) if s == "rest" => rest,
            Count::Items(k) if *k > rest.len() => return Err(too_many("database", *k, rest.len())),
            Count::Items(k) => rest[..*k].to_vec(),
            Count::Named(name) => part("database", name)?,
        };
        let mut training = match &self.training {
            Count::Named(s) if s == "database" => database.clone(),
            Count::Items(k) if *k > database.len() => {
                return Err(too_many("training", *k, database.len()));
            }
            Count::Items(k) => database[..*k].to_vec(),
            Count::Named(other) => {
                return Err(DataError::Invalid(format!(
                    "split.training = \"{other}\": use \"database\" or a count"
                )));
            }
        };
        if self.labelled > training.len() {
            return Err(too_many("labelled", self.labelled, training.len()));
        }
        let labelled = training[..self.labelled].to_vec();
        // Database and training sets are kept in dataset order so that
        // database indices are stable identifiers; queries keep draw order.
        database.sort_unstable();
        training.sort_unstable();
        Ok(Split {
            queries,
            database,
            training,
            labelled,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(q: Count, db: Count, tr: Count, l: usize) -> SplitSpec {
        SplitSpec {
            queries: q,
            database: db,
            training: tr,
            labelled: l,
        }
    }

    #[test]
    fn random_split_is_disjoint_seeded_and_nested() {
        let s = spec(Count::Items(10), rest(), Count::Items(50), 5);
        let a = s.split(100, &[], 7).unwrap();
        assert_eq!(a, s.split(100, &[], 7).unwrap());
        assert_ne!(a, s.split(100, &[], 8).unwrap());
        assert_eq!(
            (a.queries.len(), a.database.len(), a.training.len()),
            (10, 90, 50)
        );
        assert!(a.queries.iter().all(|q| !a.database.contains(q)));
        assert!(a.training.iter().all(|t| a.database.contains(t)));
        assert!(a.labelled.iter().all(|l| a.training.contains(l)));
    }

    #[test]
    fn named_parts_give_a_predefined_split() {
        let parts = vec![("train".to_string(), 0..6), ("test".to_string(), 6..9)];
        let s = spec(Count::Named("test".into()), rest(), database(), 0);
        let a = s.split(9, &parts, 1).unwrap();
        assert_eq!(a.queries, vec![6, 7, 8]);
        assert_eq!(a.database, (0..6).collect::<Vec<_>>());
        assert_eq!(a.training, a.database);
    }

    #[test]
    fn impossible_requests_name_the_field() {
        let e = spec(Count::Items(20), rest(), database(), 0)
            .split(10, &[], 0)
            .unwrap_err();
        assert!(e.to_string().contains("split.queries = 20"));
        let e = spec(Count::Items(2), rest(), database(), 9)
            .split(10, &[], 0)
            .unwrap_err();
        assert!(e.to_string().contains("split.labelled = 9"));
        let e = spec(Count::Named("val".into()), rest(), database(), 0)
            .split(10, &[], 0)
            .unwrap_err();
        assert!(e.to_string().contains("no such part"));
    }
}
