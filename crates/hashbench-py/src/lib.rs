#![doc = include_str!("../README.md")]

use faer::Mat;
use hashbench_core::search::hamming_distances_into;
use hashbench_core::target::Target;
use hashbench_core::{BitCodes, Data, GramRows, GroundTruth, HashModel, SparseRows};
use hashbench_eval::{EvalInputs, MetricSpec, evaluate as evaluate_codes};
use hashbench_methods::CATALOG;
use numpy::ndarray::{Array2, ArrayView2};
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// A `ValueError` whose message starts with the argument it is about.
fn invalid(argument: &str, message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{argument}: {message}"))
}

/// Every registered method as JSON: its spec name, label, paper, supervision,
/// longest code, and its parameters with their defaults (`null` when the
/// method has a parameter without one; `defaults_error` says which), less
/// those an experiment serves it (`target` gives them).
#[pyfunction]
fn methods_json() -> String {
    let all: Vec<serde_json::Value> = CATALOG
        .methods
        .iter()
        .map(|r| {
            let read = r.read(serde_json::json!({ "method": r.name }));
            let defaults = read
                .as_ref()
                .ok()
                .and_then(|spec| serde_json::from_str::<serde_json::Value>(&spec.to_json()).ok())
                .map(|mut d| {
                    if let Some(o) = d.as_object_mut() {
                        o.retain(|k, _| !r.served.contains(&k.as_str()));
                    }
                    d
                });
            serde_json::json!({
                "name": r.name,
                "label": r.label,
                "paper": r.paper,
                "supervision": format!("{:?}", r.requirements.supervision),
                "bit_limit": format!("{:?}", r.requirements.bit_limit),
                "defaults": defaults,
                "defaults_error": read.err(),
            })
        })
        .collect();
    serde_json::Value::Array(all).to_string()
}

/// Items as a method reads them: a float64 matrix (rows are items), a CSR
/// tuple `(n_rows, n_cols, indptr, indices, data)`, or `("gram", K, rows)`:
/// the items `rows` of the square kernel matrix `K` (a precomputed
/// kernel), checked (shape, finite values, structure, range) with errors
/// naming `argument`; a `K` with the entries of the matrix a model was
/// `fitted` on becomes that matrix.
fn items_of(argument: &str, x: &Bound<'_, PyAny>, fitted: Option<&GramRows>) -> PyResult<Data> {
    type Gram<'py> = (
        String,
        PyReadonlyArray2<'py, f64>,
        PyReadonlyArray1<'py, i64>,
    );
    if let Ok((kind, gram, rows)) = x.extract::<Gram<'_>>()
        && kind == "gram"
    {
        let k = gram.as_array();
        let n = k.nrows();
        if n == 0 || k.ncols() != n {
            return Err(invalid(
                argument,
                format!("a kernel matrix is square, got {} x {}", n, k.ncols()),
            ));
        }
        if let Some(((i, j), v)) = k.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(invalid(argument, format!("kernel entry ({i}, {j}) is {v}")));
        }
        let rows = rows
            .as_array()
            .iter()
            .map(|&r| match usize::try_from(r) {
                Ok(r) if r < n => Ok(r),
                _ => Err(invalid(
                    argument,
                    format!("row {r} of a {n} x {n} kernel matrix"),
                )),
            })
            .collect::<PyResult<Vec<usize>>>()?;
        if rows.is_empty() {
            return Err(invalid(argument, "no rows of the kernel matrix"));
        }
        return Ok(Data::Gram(shared_gram(k.view(), fitted)?).select(&rows));
    }
    if let Ok(dense) = x.extract::<PyReadonlyArray2<'_, f64>>() {
        let a = dense.as_array();
        let (n, d) = a.dim();
        if n == 0 || d == 0 {
            return Err(invalid(argument, format!("an empty matrix ({n} x {d})")));
        }
        if let Some(((i, j), v)) = a.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(invalid(argument, format!("{v} at row {i}, column {j}")));
        }
        return Ok(Data::Dense(Mat::from_fn(n, d, |i, j| a[[i, j]])));
    }
    type Csr<'py> = (
        usize,
        usize,
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, f64>,
    );
    let Ok((n, d, indptr, indices, values)) = x.extract::<Csr<'_>>() else {
        return Err(invalid(
            argument,
            "a 2-D float64 array, a CSR tuple (n_rows, n_cols, indptr, indices, data) or a hashbench.Gram expected",
        ));
    };
    let (indptr, indices, values) = (indptr.as_array(), indices.as_array(), values.as_array());
    if indptr.len() != n + 1 || indptr[0] != 0 || indices.len() != values.len() {
        return Err(invalid(argument, "CSR arrays of inconsistent lengths"));
    }
    let mut rows = Vec::with_capacity(n);
    for r in 0..n {
        let (start, end) = (indptr[r], indptr[r + 1]);
        if start > end || end as usize > indices.len() {
            return Err(invalid(argument, format!("CSR row {r}: bad indptr")));
        }
        let row = (start as usize..end as usize)
            .map(|k| match u32::try_from(indices[k]) {
                Ok(i) => Ok((i, values[k])),
                Err(_) => Err(invalid(
                    argument,
                    format!("CSR row {r}: column {}", indices[k]),
                )),
            })
            .collect::<PyResult<Vec<_>>>()?;
        rows.push(row);
    }
    SparseRows::new(d, &rows)
        .map(Data::Sparse)
        .map_err(|e| invalid(argument, e))
}

/// The matrix `k` as the all-items rows of a shared Gram matrix: `fitted`
/// (the matrix a model was fitted on) when `k` holds the same entries
/// (compared in place, no copy), as a method reads the items it encodes
/// from the matrix it was fitted on (one shared matrix, as a run's Gram
/// data set).
fn shared_gram(k: ArrayView2<'_, f64>, fitted: Option<&GramRows>) -> PyResult<GramRows> {
    if let Some(gram) = fitted {
        let held = gram.gram();
        let same = held.nrows() == k.nrows()
            && held.ncols() == k.ncols()
            && k.indexed_iter()
                .all(|((i, j), v)| held[(i, j)].to_bits() == v.to_bits());
        if same {
            return Ok(gram.clone());
        }
    }
    let (n, m) = k.dim();
    GramRows::new(Mat::from_fn(n, m, |i, j| k[[i, j]])).map_err(|e| invalid("X", e))
}

/// A fitted method.
#[pyclass(module = "hashbench._native", frozen)]
struct Model {
    model: Box<dyn HashModel>,
    /// Every item of the kernel matrix it was fitted on, if any.
    gram: Option<GramRows>,
}

#[pymethods]
impl Model {
    /// Code length.
    #[getter]
    fn n_bits(&self) -> usize {
        self.model.n_bits()
    }

    /// Per-bit weights of a weighted Hamming ranking (BSSC), else None.
    #[getter]
    fn bit_weights(&self) -> Option<Vec<f64>> {
        self.model.bit_weights()
    }

    /// The codes of `x` as packed bytes (n × ⌈bits / 8⌉ uint8).
    fn encode<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<u8>>> {
        let data = items_of("X", x, self.gram.as_ref())?;
        let codes = py
            .detach(|| self.model.encode(&data))
            .map_err(|e| invalid("X", e))?;
        packed(py, &codes)
    }
}

/// Codes as an n × ⌈bits / 8⌉ uint8 array (its buffer moved, not copied).
fn packed<'py>(py: Python<'py>, codes: &BitCodes) -> PyResult<Bound<'py, PyArray2<u8>>> {
    let shape = (codes.len(), BitCodes::bytes_per_code(codes.n_bits()));
    let array = Array2::from_shape_vec(shape, codes.to_packed_bytes())
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(array.into_pyarray(py))
}

/// Fits method `method` (its spec name) with `params` (a JSON object of its
/// spec parameters) on the items `x`, with `labels` when it reads them, at
/// `n_bits` bits, its randomness seeded by `seed` as a run seeds a trial,
/// serving `target` (a JSON [`Target`]: the truth and the metric an
/// experiment would hand it) when given.
#[pyfunction]
#[pyo3(signature = (method, params, n_bits, seed, x, labels=None, target=None))]
#[allow(clippy::too_many_arguments)]
fn fit(
    py: Python<'_>,
    method: &str,
    params: &str,
    n_bits: usize,
    seed: u64,
    x: &Bound<'_, PyAny>,
    labels: Option<PyReadonlyArray1<'_, i64>>,
    target: Option<&str>,
) -> PyResult<Model> {
    let registration = CATALOG.get(method).ok_or_else(|| {
        invalid(
            "method",
            format!("`{method}` is not registered ({})", CATALOG.names()),
        )
    })?;
    let mut table: serde_json::Value =
        serde_json::from_str(params).map_err(|e| invalid("params", e))?;
    let Some(object) = table.as_object_mut() else {
        return Err(invalid("params", "a table of parameters expected"));
    };
    object.insert("method".into(), method.into());
    let mut spec = registration.read(table).map_err(PyValueError::new_err)?;
    if let Some(target) = target {
        let target: Target =
            serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(target))
                .map_err(|e| invalid("target", e))?;
        spec = spec.serving(&target).map_err(|e| invalid("target", e))?;
    }
    spec.validate()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let data = items_of("X", x, None)?;
    spec.check_data(&data).map_err(|e| invalid("X", e))?;
    if n_bits == 0 {
        return Err(invalid("n_bits", "a code needs at least one bit"));
    }
    let dim = match &data {
        Data::Dense(x) => x.ncols(),
        Data::Sparse(x) => x.n_cols(),
        _ => data.n_items(),
    };
    if let Some(most) = spec.requirements().max_bits(dim)
        && n_bits > most
    {
        return Err(invalid(
            "n_bits",
            format!(
                "{} codes at most {most} bits on {dim}-dimensional data, not {n_bits}",
                registration.label
            ),
        ));
    }
    let labels: Vec<u32> = match labels {
        None => Vec::new(),
        Some(y) => {
            let y = y.as_array();
            if y.len() != data.n_items() {
                return Err(invalid(
                    "y",
                    format!("{} labels for {} items", y.len(), data.n_items()),
                ));
            }
            y.iter()
                .map(|&l| u32::try_from(l).map_err(|_| invalid("y", format!("label {l}"))))
                .collect::<PyResult<_>>()?
        }
    };
    let model = py
        .detach(|| spec.fit_seeded(&data, &labels, n_bits, seed))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let gram = match &data {
        Data::Gram(rows) => Some(rows.all_items()),
        _ => None,
    };
    Ok(Model { model, gram })
}

/// Packed codes from a uint8 array of `bits`-bit codes, checked.
fn codes_of(argument: &str, codes: &PyReadonlyArray2<'_, u8>, n_bits: usize) -> PyResult<BitCodes> {
    let per_code = BitCodes::bytes_per_code(n_bits);
    if codes.shape()[1] != per_code {
        return Err(invalid(
            argument,
            format!(
                "{} bytes per code, but {n_bits}-bit codes take {per_code}",
                codes.shape()[1]
            ),
        ));
    }
    // C-ordered (the package makes it so): read in place
    let bytes = match codes.as_slice() {
        Ok(bytes) => std::borrow::Cow::Borrowed(bytes),
        Err(_) => std::borrow::Cow::Owned(codes.as_array().iter().copied().collect()),
    };
    BitCodes::from_packed_bytes(n_bits, &bytes).map_err(|e| invalid(argument, e))
}

/// The ground truth: `("labels", query_labels, database_labels)` (relevant
/// = same label) or `("lists", n_db, [ascending database indices per query])`.
fn truth_of(truth: &Bound<'_, PyAny>, n_queries: usize, n_db: usize) -> PyResult<GroundTruth> {
    let kind: String = truth
        .get_item(0)
        .and_then(|k| k.extract())
        .map_err(|_| invalid("truth", "a (kind, ...) tuple expected"))?;
    let unsigned = |argument: &str, l: PyReadonlyArray1<'_, i64>| -> PyResult<Vec<u32>> {
        l.as_array()
            .iter()
            .map(|&v| u32::try_from(v).map_err(|_| invalid(argument, format!("label {v}"))))
            .collect()
    };
    let truth = match kind.as_str() {
        "labels" => {
            let (_, q, db): (String, PyReadonlyArray1<'_, i64>, PyReadonlyArray1<'_, i64>) =
                truth.extract()?;
            GroundTruth::SameLabel {
                query_labels: unsigned("query_labels", q)?,
                db_labels: unsigned("database_labels", db)?,
            }
        }
        "lists" => {
            let (_, n, lists): (String, usize, Vec<PyReadonlyArray1<'_, i64>>) = truth.extract()?;
            let mut out = Vec::with_capacity(lists.len());
            for (q, list) in lists.into_iter().enumerate() {
                let list = list.as_array();
                let mut items = Vec::with_capacity(list.len());
                for &i in list {
                    match u32::try_from(i) {
                        Ok(i) if (i as usize) < n && items.last().is_none_or(|&p| p < i) => {
                            items.push(i);
                        }
                        _ => {
                            return Err(invalid(
                                "truth",
                                format!("query {q}: relevant item {i} out of order or range"),
                            ));
                        }
                    }
                }
                out.push(items);
            }
            GroundTruth::Lists {
                n_db: n,
                lists: out,
            }
        }
        other => return Err(invalid("truth", format!("unknown kind `{other}`"))),
    };
    if truth.n_queries() != n_queries || truth.n_db() != n_db {
        return Err(invalid(
            "truth",
            format!(
                "for {} queries and {} database items, the codes are {n_queries} and {n_db}",
                truth.n_queries(),
                truth.n_db()
            ),
        ));
    }
    Ok(truth)
}

/// Evaluates packed `database` and `queries` codes of `n_bits` bits under
/// `metrics` (a JSON list of spec metric tables) against `truth`; ties under
/// `ties = "random"` broken by a database order shuffled with `tie_seed` as
/// a run shuffles it. Returns the values as JSON (scalars, curves, per-query
/// values).
#[pyfunction]
#[pyo3(signature = (database, queries, n_bits, truth, metrics, tie_seed=0, bit_weights=None))]
#[allow(clippy::too_many_arguments)]
fn evaluate(
    py: Python<'_>,
    database: PyReadonlyArray2<'_, u8>,
    queries: PyReadonlyArray2<'_, u8>,
    n_bits: usize,
    truth: &Bound<'_, PyAny>,
    metrics: &str,
    tie_seed: u64,
    bit_weights: Option<Vec<f64>>,
) -> PyResult<String> {
    if n_bits == 0 {
        return Err(invalid("n_bits", "a code needs at least one bit"));
    }
    let db = codes_of("database", &database, n_bits)?;
    let q = codes_of("queries", &queries, n_bits)?;
    if db.is_empty() || q.is_empty() {
        return Err(invalid("database", "no codes to evaluate"));
    }
    let truth = truth_of(truth, q.len(), db.len())?;
    let tables: serde_json::Value =
        serde_json::from_str(metrics).map_err(|e| invalid("metrics", e))?;
    let specs: Vec<MetricSpec> =
        serde_path_to_error::deserialize(tables).map_err(|e| invalid("metrics", e))?;
    for spec in &specs {
        spec.validate().map_err(|e| invalid("metrics", e))?;
        if spec.info().needs_kernel {
            return Err(invalid(
                "metrics",
                format!("{spec:?} ranks by kernel scores, which packed codes do not carry"),
            ));
        }
    }
    if let Some(w) = &bit_weights
        && (w.len() != n_bits || w.iter().any(|v| !v.is_finite()))
    {
        return Err(invalid(
            "bit_weights",
            format!("{n_bits} finite weights expected"),
        ));
    }
    let mut tie_order: Vec<u32> = (0..db.len() as u32).collect();
    tie_order.shuffle(&mut ChaCha8Rng::seed_from_u64(tie_seed));
    let values = py.detach(|| {
        evaluate_codes(
            &specs,
            &EvalInputs {
                db: &db,
                queries: &q,
                truth: &truth,
                bit_weights: bit_weights.as_deref(),
                tie_order: &tie_order,
                search: None,
            },
        )
    });
    serde_json::to_string(&values).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Each query's nearest database indices and their distances.
type Neighbours<'py> = (Bound<'py, PyArray2<i64>>, Bound<'py, PyArray2<i32>>);

/// The `k` nearest database codes of each query by Hamming distance, ties
/// by database index: (indices, distances), each queries × k.
#[pyfunction]
fn search<'py>(
    py: Python<'py>,
    database: PyReadonlyArray2<'py, u8>,
    queries: PyReadonlyArray2<'py, u8>,
    n_bits: usize,
    k: usize,
) -> PyResult<Neighbours<'py>> {
    if n_bits == 0 {
        return Err(invalid("n_bits", "a code needs at least one bit"));
    }
    let db = codes_of("database", &database, n_bits)?;
    let q = codes_of("queries", &queries, n_bits)?;
    if k == 0 || k > db.len() {
        return Err(invalid(
            "k",
            format!("{k} neighbours of {} database codes", db.len()),
        ));
    }
    let rows: Vec<(Vec<i64>, Vec<i32>)> = py.detach(|| {
        (0..q.len())
            .into_par_iter()
            .map_init(
                || vec![0u32; db.len()],
                |distances, i| nearest(&db, q.code(i), n_bits, k, distances),
            )
            .collect()
    });
    let (indices, distances): (Vec<Vec<i64>>, Vec<Vec<i32>>) = rows.into_iter().unzip();
    let shape = (q.len(), k);
    let indices = Array2::from_shape_vec(shape, indices.concat())
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let distances = Array2::from_shape_vec(shape, distances.concat())
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((indices.into_pyarray(py), distances.into_pyarray(py)))
}

/// The `k` nearest codes of `db` to `query`, ties by index, with their
/// distances; `distances` is scratch as long as the database.
fn nearest(
    db: &BitCodes,
    query: &[u64],
    n_bits: usize,
    k: usize,
    distances: &mut [u32],
) -> (Vec<i64>, Vec<i32>) {
    hamming_distances_into(query, db, distances);
    // the distance of the k-th nearest: the first whose cumulative count reaches k
    let mut counts = vec![0usize; n_bits + 1];
    for &d in distances.iter() {
        counts[d as usize] += 1;
    }
    let mut seen = 0;
    let cut = (0..=n_bits)
        .find(|&d| {
            seen += counts[d];
            seen >= k
        })
        .expect("k is at most the database size");
    let mut by_distance: Vec<(u32, i64)> = Vec::with_capacity(k + counts[cut]);
    let mut at_cut = k - (seen - counts[cut]);
    for (i, &d) in distances.iter().enumerate() {
        if (d as usize) < cut {
            by_distance.push((d, i as i64));
        } else if d as usize == cut && at_cut > 0 {
            by_distance.push((d, i as i64));
            at_cut -= 1;
        }
    }
    by_distance.sort_unstable();
    by_distance.into_iter().map(|(d, i)| (i, d as i32)).unzip()
}

/// Sets the size of the one thread pool every fit and evaluation runs on;
/// only before the first of them.
#[pyfunction]
fn set_threads(threads: usize) -> PyResult<()> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|_| {
            PyRuntimeError::new_err(format!(
                "the thread pool already runs {} threads: set_threads comes before any fit or evaluation",
                rayon::current_num_threads()
            ))
        })
}

/// Threads of the pool.
#[pyfunction]
fn threads() -> usize {
    rayon::current_num_threads()
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // as a run: faer's own kernels sequential, parallelism over rayon's pool
    faer::set_global_parallelism(faer::Par::Seq);
    m.add_class::<Model>()?;
    m.add_function(wrap_pyfunction!(methods_json, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(search, m)?)?;
    m.add_function(wrap_pyfunction!(set_threads, m)?)?;
    m.add_function(wrap_pyfunction!(threads, m)?)?;
    Ok(())
}
