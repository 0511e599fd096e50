//! Which database items are relevant to each query. Built by `hashbench-data`
//! from a named rule, read by `hashbench-eval`.

/// Relevance of database items to queries.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum GroundTruth {
    /// Relevant = same class label (computed on the fly, nothing stored).
    SameLabel {
        /// Label of each query.
        query_labels: Vec<u32>,
        /// Label of each database item.
        db_labels: Vec<u32>,
    },
    /// Relevant = listed: for each query, ascending database indices.
    Lists {
        /// Database size.
        n_db: usize,
        /// Relevant indices per query, ascending.
        lists: Vec<Vec<u32>>,
    },
}

impl GroundTruth {
    /// Number of queries.
    pub fn n_queries(&self) -> usize {
        match self {
            GroundTruth::SameLabel { query_labels, .. } => query_labels.len(),
            GroundTruth::Lists { lists, .. } => lists.len(),
        }
    }

    /// Number of database items.
    pub fn n_db(&self) -> usize {
        match self {
            GroundTruth::SameLabel { db_labels, .. } => db_labels.len(),
            GroundTruth::Lists { n_db, .. } => *n_db,
        }
    }

    /// Writes the relevance of every database item to query `q` into `out`
    /// (length `n_db`) and returns how many are relevant.
    ///
    /// # Panics
    /// If `q` is out of range or `out` has the wrong length.
    #[track_caller]
    pub fn fill_relevance(&self, q: usize, out: &mut [bool]) -> usize {
        assert_eq!(out.len(), self.n_db(), "relevance buffer length");
        match self {
            GroundTruth::SameLabel {
                query_labels,
                db_labels,
            } => {
                let l = query_labels[q];
                let mut n = 0;
                for (o, &d) in out.iter_mut().zip(db_labels) {
                    *o = d == l;
                    n += usize::from(*o);
                }
                n
            }
            GroundTruth::Lists { lists, .. } => {
                out.fill(false);
                for &i in &lists[q] {
                    out[i as usize] = true;
                }
                lists[q].len()
            }
        }
    }

    /// The same relevance with the database reordered: new item `k` is old item
    /// `perm[k]`.
    pub fn permute_db(&self, perm: &[usize]) -> GroundTruth {
        match self {
            GroundTruth::SameLabel {
                query_labels,
                db_labels,
            } => GroundTruth::SameLabel {
                query_labels: query_labels.clone(),
                db_labels: perm.iter().map(|&p| db_labels[p]).collect(),
            },
            GroundTruth::Lists { n_db, lists } => {
                let mut inverse = vec![0u32; *n_db];
                for (k, &p) in perm.iter().enumerate() {
                    inverse[p] = k as u32;
                }
                let lists = lists
                    .iter()
                    .map(|l| {
                        let mut v: Vec<u32> = l.iter().map(|&i| inverse[i as usize]).collect();
                        v.sort_unstable();
                        v
                    })
                    .collect();
                GroundTruth::Lists { n_db: *n_db, lists }
            }
        }
    }
}
