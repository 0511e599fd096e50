//! Labelled graphs in the TU Dortmund benchmark format, and the
//! Weisfeiler-Lehman subtree features that turn them into sparse vectors
//! (Shervashidze et al., JMLR 2011, Sec. 3.1), so that every kernel method
//! reads graphs as it reads bag-of-words histograms: k(G, G′) = ⟨φ(G), φ(G′)⟩.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use hashbench_core::SparseRows;
use serde::{Deserialize, Serialize};

use crate::{DataError, Result, open_maybe_gz};

/// One undirected graph with node labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// Label of each node (level 0 of the WL relabelling).
    pub node_labels: Vec<u32>,
    /// Neighbours of each node (local indices), each edge in both lists.
    pub neighbours: Vec<Vec<u32>>,
}

/// The files of one TU data set: `<DS>_A.txt`, `<DS>_graph_indicator.txt`,
/// and optionally `<DS>_node_labels.txt` (without it every node has label 0).
#[derive(Debug, Clone)]
pub struct TuFiles {
    /// The edge list `<DS>_A.txt`: `i, j` per line, 1-based node ids.
    pub edges: PathBuf,
    /// `<DS>_graph_indicator.txt`: the 1-based graph id of node i on line i.
    pub indicator: PathBuf,
    /// `<DS>_node_labels.txt`: the label of node i on line i.
    pub node_labels: Option<PathBuf>,
}

/// Non-blank lines of `path` with their 1-based numbers; CRLF or LF.
fn numbered_lines(path: &Path) -> Result<Vec<(usize, String)>> {
    let mut out = Vec::new();
    for (i, line) in BufReader::new(open_maybe_gz(path)?).lines().enumerate() {
        let line = line.map_err(|e| DataError::io(path, e))?;
        let t = line.trim();
        if !t.is_empty() {
            out.push((i + 1, t.to_string()));
        }
    }
    Ok(out)
}

fn parse_int<T: std::str::FromStr>(path: &Path, line: usize, token: &str, what: &str) -> Result<T> {
    token.trim().parse().map_err(|_| {
        DataError::format(
            path,
            format!("line {line}: `{}` is not {what}", token.trim()),
        )
    })
}

/// Reads a TU data set: one [`Graph`] per graph id, in id order.
///
/// # Errors
/// A malformed line, a node or graph id out of range, graph ids that are not
/// 1..G with every graph's nodes contiguous, or an edge between two graphs,
/// naming the file and line.
pub fn read_tu(files: &TuFiles) -> Result<Vec<Graph>> {
    let ind_path = &files.indicator;
    let indicator: Vec<usize> = numbered_lines(ind_path)?
        .iter()
        .map(|(n, l)| parse_int(ind_path, *n, l, "a graph id"))
        .collect::<Result<_>>()?;
    let n_nodes = indicator.len();
    let first_node = graph_starts(ind_path, &indicator)?;
    let labels = node_labels(files, n_nodes)?;
    let mut graphs: Vec<Graph> = (0..first_node.len() - 1)
        .map(|g| {
            let (a, b) = (first_node[g], first_node[g + 1]);
            Graph {
                node_labels: labels[a..b].to_vec(),
                neighbours: vec![Vec::new(); b - a],
            }
        })
        .collect();
    let a_path = &files.edges;
    for (n, line) in numbered_lines(a_path)? {
        let (i, j) = line.split_once(',').ok_or_else(|| {
            DataError::format(a_path, format!("line {n}: `{line}` is not `i, j`"))
        })?;
        let i: usize = parse_int(a_path, n, i, "a node id")?;
        let j: usize = parse_int(a_path, n, j, "a node id")?;
        for v in [i, j] {
            if v == 0 || v > n_nodes {
                return Err(DataError::format(
                    a_path,
                    format!("line {n}: node {v} is not in 1..{n_nodes}"),
                ));
            }
        }
        let (gi, gj) = (indicator[i - 1], indicator[j - 1]);
        if gi != gj {
            return Err(DataError::format(
                a_path,
                format!("line {n}: edge between graph {gi} and graph {gj}"),
            ));
        }
        let base = first_node[gi - 1];
        let (li, lj) = ((i - 1 - base) as u32, (j - 1 - base) as u32);
        let g = &mut graphs[gi - 1];
        // each undirected edge is listed both ways; an edge listed once still counts
        if !g.neighbours[li as usize].contains(&lj) {
            g.neighbours[li as usize].push(lj);
        }
        if !g.neighbours[lj as usize].contains(&li) {
            g.neighbours[lj as usize].push(li);
        }
    }
    Ok(graphs)
}

/// The first (0-based) node of each graph, then the node count, from the
/// graph indicator's ids (read from `path`): 1, 2, ... with each graph's
/// nodes together.
fn graph_starts(path: &Path, indicator: &[usize]) -> Result<Vec<usize>> {
    let mut first_node = Vec::new();
    for (v, &g) in indicator.iter().enumerate() {
        let expected = first_node.len();
        if g == expected + 1 {
            first_node.push(v);
        } else if g != expected {
            return Err(DataError::format(
                path,
                format!(
                    "line {}: graph id {g} after {expected}; ids must run 1, 2, ... with each graph's nodes together",
                    v + 1
                ),
            ));
        }
    }
    first_node.push(indicator.len());
    Ok(first_node)
}

/// The node labels (all 0 without a labels file), one per node.
fn node_labels(files: &TuFiles, n_nodes: usize) -> Result<Vec<u32>> {
    let Some(p) = &files.node_labels else {
        return Ok(vec![0; n_nodes]);
    };
    let l: Vec<u32> = numbered_lines(p)?
        .iter()
        .map(|(n, l)| parse_int(p, *n, l, "a node label (non-negative integer)"))
        .collect::<Result<_>>()?;
    if l.len() != n_nodes {
        return Err(DataError::format(
            p,
            format!(
                "{} node labels for {n_nodes} nodes in {}",
                l.len(),
                files.indicator.display()
            ),
        ));
    }
    Ok(l)
}

/// Weisfeiler-Lehman subtree features: `iterations` (h) relabelling rounds,
/// counts of every label at levels 0..h, optionally scaled to unit norm
/// (cosine normalisation of the kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WlSubtree {
    /// Relabelling rounds h.
    pub iterations: usize,
    /// Scale each feature vector to unit length, so k(G, G) = 1.
    #[serde(default)]
    pub normalise: bool,
}

impl WlSubtree {
    /// φ of every graph as sparse rows. Each level's compressed labels get
    /// their own feature indices, from one dictionary shared by all graphs:
    /// a node's new label names (its label, the sorted multiset of its
    /// neighbours' labels), so φ(G) depends on G alone and isomorphic graphs
    /// get equal features.
    pub fn features(&self, graphs: &[Graph]) -> SparseRows {
        let mut labels: Vec<Vec<u32>> = graphs.iter().map(|g| g.node_labels.clone()).collect();
        let mut counts: Vec<HashMap<u32, f64>> = vec![HashMap::new(); graphs.len()];
        let mut offset = 0u32;
        for level in 0..=self.iterations {
            let mut dictionary: HashMap<(u32, Vec<u32>), u32> = HashMap::new();
            if level == 0 {
                // level 0: the original labels, renumbered densely
                let mut seen: HashMap<u32, u32> = HashMap::new();
                for l in labels.iter_mut().flatten() {
                    let next = seen.len() as u32;
                    *l = *seen.entry(*l).or_insert(next);
                }
            } else {
                labels = graphs
                    .iter()
                    .zip(&labels)
                    .map(|(g, old)| {
                        (0..old.len())
                            .map(|v| {
                                let mut multiset: Vec<u32> =
                                    g.neighbours[v].iter().map(|&u| old[u as usize]).collect();
                                multiset.sort_unstable();
                                let next = dictionary.len() as u32;
                                *dictionary.entry((old[v], multiset)).or_insert(next)
                            })
                            .collect()
                    })
                    .collect();
            }
            let mut width = 0u32;
            for (c, ls) in counts.iter_mut().zip(&labels) {
                for &l in ls {
                    *c.entry(offset + l).or_insert(0.0) += 1.0;
                    width = width.max(l + 1);
                }
            }
            offset += width;
        }
        let rows: Vec<Vec<(u32, f64)>> = counts
            .into_iter()
            .map(|c| {
                let mut row: Vec<(u32, f64)> = c.into_iter().collect();
                row.sort_unstable_by_key(|&(i, _)| i);
                if self.normalise {
                    let norm = row.iter().map(|(_, v)| v * v).sum::<f64>().sqrt();
                    if norm > 0.0 {
                        row.iter_mut().for_each(|(_, v)| *v /= norm);
                    }
                }
                row
            })
            .collect();
        SparseRows::new(offset as usize, &rows)
            .expect("WL rows have sorted, in-range indices and finite counts")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(labels: &[u32], edges: &[(u32, u32)]) -> Graph {
        let mut neighbours = vec![Vec::new(); labels.len()];
        for &(a, b) in edges {
            neighbours[a as usize].push(b);
            neighbours[b as usize].push(a);
        }
        Graph {
            node_labels: labels.to_vec(),
            neighbours,
        }
    }

    fn dot(x: &SparseRows, i: usize, j: usize) -> f64 {
        let (a, b) = (x.row(i), x.row(j));
        a.0.iter()
            .zip(a.1)
            .filter_map(|(k, v)| b.0.iter().position(|q| q == k).map(|p| v * b.1[p]))
            .sum()
    }

    #[test]
    fn a_hand_computed_wl_kernel() {
        // path a-b-a and path a-a-b (labels a = 0, b = 1)
        let g1 = graph(&[0, 1, 0], &[(0, 1), (1, 2)]);
        let g2 = graph(&[0, 0, 1], &[(0, 1), (1, 2)]);
        let x = WlSubtree {
            iterations: 1,
            normalise: false,
        }
        .features(&[g1.clone(), g2]);
        // level 0: both have two a and one b: 2·2 + 1·1 = 5.
        // level 1: g1 = {(a,[b]) x2, (b,[a,a])}; g2 = {(a,[a]), (a,[a,b]), (b,[a])}:
        // no label in common, so k(g1, g2) = 5; k(g1, g1) = 5 + 2·2 + 1 = 10
        assert_eq!(dot(&x, 0, 1), 5.0);
        assert_eq!(dot(&x, 0, 0), 10.0);
        assert_eq!(dot(&x, 1, 1), 5.0 + 3.0);
        let cos = WlSubtree {
            iterations: 1,
            normalise: true,
        }
        .features(&[g1]);
        assert!((dot(&cos, 0, 0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn isomorphic_graphs_get_equal_features() {
        // a labelled 5-node graph and the same graph with its nodes permuted
        let labels = [2, 0, 1, 0, 2];
        let edges = [(0, 1), (1, 2), (2, 3), (3, 4), (1, 3), (0, 4)];
        let perm = [3u32, 0, 4, 1, 2];
        let mut permuted_labels = [0u32; 5];
        for (v, &p) in perm.iter().enumerate() {
            permuted_labels[p as usize] = labels[v];
        }
        let permuted_edges: Vec<(u32, u32)> = edges
            .iter()
            .map(|&(a, b)| (perm[a as usize], perm[b as usize]))
            .collect();
        let g = graph(&labels, &edges);
        let h = graph(&permuted_labels, &permuted_edges);
        let other = graph(&labels, &[(0, 1), (1, 2), (2, 3), (3, 4), (0, 2), (1, 4)]);
        let x = WlSubtree {
            iterations: 3,
            normalise: false,
        }
        .features(&[g, h, other]);
        assert_eq!(x.row(0), x.row(1));
        assert_ne!(x.row(0), x.row(2));
    }

    #[test]
    fn features_agree_with_a_brute_force_count_of_subtree_patterns() {
        // brute force: a node's level-k pattern is the nested tuple of its own
        // label and the sorted patterns of its neighbours at level k-1;
        // k(G, G') counts pairs of nodes with equal patterns, summed over levels
        fn pattern(g: &Graph, v: usize, k: usize) -> String {
            if k == 0 {
                return g.node_labels[v].to_string();
            }
            let mut kids: Vec<String> = g.neighbours[v]
                .iter()
                .map(|&u| pattern(g, u as usize, k - 1))
                .collect();
            kids.sort();
            format!("{}({})", pattern(g, v, k - 1), kids.join(","))
        }
        let mut s: u64 = 99;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let graphs: Vec<Graph> = (0..6)
            .map(|_| {
                let n = 3 + (next() % 5) as usize;
                let labels: Vec<u32> = (0..n).map(|_| (next() % 3) as u32).collect();
                let mut edges = Vec::new();
                for a in 0..n as u32 {
                    for b in a + 1..n as u32 {
                        if next() % 3 == 0 {
                            edges.push((a, b));
                        }
                    }
                }
                graph(&labels, &edges)
            })
            .collect();
        let h = 3;
        let x = WlSubtree {
            iterations: h,
            normalise: false,
        }
        .features(&graphs);
        for i in 0..graphs.len() {
            for j in 0..graphs.len() {
                let mut brute = 0.0;
                for k in 0..=h {
                    for u in 0..graphs[i].node_labels.len() {
                        for v in 0..graphs[j].node_labels.len() {
                            if pattern(&graphs[i], u, k) == pattern(&graphs[j], v, k) {
                                brute += 1.0;
                            }
                        }
                    }
                }
                assert_eq!(dot(&x, i, j), brute, "graphs {i}, {j}");
            }
        }
    }

    #[test]
    fn tu_files_are_read_and_bad_lines_named() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        // graph 1: nodes 1-2-3 (a path), graph 2: nodes 4-5; CRLF endings
        let files = TuFiles {
            edges: write(
                "T_A.txt",
                "1, 2\r\n2, 1\r\n2, 3\r\n3, 2\r\n4, 5\r\n5, 4\r\n",
            ),
            indicator: write("T_graph_indicator.txt", "1\r\n1\r\n1\r\n2\r\n2\r\n"),
            node_labels: Some(write("T_node_labels.txt", "7\n3\n7\n3\n3\n")),
        };
        let g = read_tu(&files).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].node_labels, vec![7, 3, 7]);
        assert_eq!(g[0].neighbours, vec![vec![1], vec![0, 2], vec![1]]);
        assert_eq!(g[1].neighbours, vec![vec![1], vec![0]]);
        let bad = |f: TuFiles| read_tu(&f).unwrap_err().to_string();
        let e = bad(TuFiles {
            edges: write("B_A.txt", "1, 2\n2, 4\n"),
            ..files.clone()
        });
        assert!(
            e.contains("B_A.txt: line 2: edge between graph 1 and graph 2"),
            "{e}"
        );
        let e = bad(TuFiles {
            edges: write("C_A.txt", "1, 2\n1 2\n"),
            ..files.clone()
        });
        assert!(e.contains("C_A.txt: line 2: `1 2` is not `i, j`"), "{e}");
        let e = bad(TuFiles {
            edges: write("D_A.txt", "1, 9\n"),
            ..files.clone()
        });
        assert!(e.contains("D_A.txt: line 1: node 9 is not in 1..5"), "{e}");
        let e = bad(TuFiles {
            indicator: write("E_graph_indicator.txt", "1\n2\n1\n2\n2\n"),
            ..files.clone()
        });
        assert!(
            e.contains("E_graph_indicator.txt: line 3: graph id 1 after 2"),
            "{e}"
        );
        let e = bad(TuFiles {
            node_labels: Some(write("F_node_labels.txt", "1\n2\nx\n")),
            ..files.clone()
        });
        assert!(
            e.contains("F_node_labels.txt: line 3: `x` is not a node label"),
            "{e}"
        );
    }
}
