//! A split's training items as each method reads them (the labelled subset,
//! or every label for methods that read them all), with the fingerprint
//! that keys codes and tuning choices made on them.

use std::collections::HashMap;
use std::sync::Arc;

use hashbench_core::method::Supervision;
use hashbench_core::recent::Memos;
use hashbench_core::{Data, TrainSet};
use hashbench_data::{Dataset, Split};

use super::split_fingerprint;
use crate::store::fingerprint;
use hashbench_spec::MethodEntry;

/// A split's training items as the methods read them.
pub(crate) struct Training {
    /// Fingerprint of the data and the split they come from.
    pub(crate) context: String,
    pub(crate) x: Arc<Data>,
    pub(crate) labelled: Vec<usize>,
    pub(crate) labels: Vec<u32>,
    /// The label of every training item, for methods that read them all.
    pub(crate) every_label: Vec<u32>,
    /// 0..n: every training item's position.
    pub(crate) every: Vec<usize>,
    /// What the fits and searches on these items share (kNN graphs,
    /// neighbour lists, fold codes).
    pub(crate) memos: Memos,
}

impl Training {
    /// The training items of `split` (`database`, when given, holds the
    /// split's database items: a split that trains on its database shares it).
    pub(crate) fn new(data: &Dataset, split: &Split, database: Option<&Arc<Data>>) -> Self {
        let x = match database {
            Some(db) if split.training == split.database => Arc::clone(db),
            _ => Arc::new(data.x.select(&split.training)),
        };
        let position: HashMap<usize, usize> = split
            .training
            .iter()
            .enumerate()
            .map(|(p, &i)| (i, p))
            .collect();
        let of = |items: &[usize]| match &data.labels {
            Some(l) => items.iter().map(|&i| l[i]).collect(),
            None => Vec::new(),
        };
        let every_label: Vec<u32> = of(&split.training);
        Training {
            context: fingerprint(&[&data.fingerprint, &split_fingerprint(split)]),
            x,
            labelled: split.labelled.iter().map(|i| position[i]).collect(),
            labels: of(&split.labelled),
            every: (0..every_label.len()).collect(),
            every_label,
            memos: Memos::default(),
        }
    }

    /// The training set `m` reads: every label for methods that read them
    /// all, else the split's labelled subset.
    pub(crate) fn set(&self, m: &MethodEntry) -> TrainSet<'_> {
        if m.spec.supervision() == Supervision::AllTraining {
            TrainSet {
                x: &self.x,
                labelled: &self.every,
                labels: &self.every_label,
                memos: Some(&self.memos),
            }
        } else {
            TrainSet {
                x: &self.x,
                labelled: &self.labelled,
                labels: &self.labels,
                memos: Some(&self.memos),
            }
        }
    }
}
