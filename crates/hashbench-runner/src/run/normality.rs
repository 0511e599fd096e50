//! The KLSH normality study (Kulis and Grauman 2012, Sec. 6.6, Fig. 7): how
//! Gaussian are the hyperplanes r = Σᵢ w(i) xᵢ that KLSH builds with a linear
//! kernel? For each p, `hyperplanes` times: draw p items of the pool, compute
//! KLSH's weights with t = ⌊t_fraction · p⌋ (eq. 8), form r explicitly and test
//! its d coordinates with the Anderson-Darling test (α = 0.05). Compared with
//! r drawn from N(0, I) ("True random") and r = Σᵢ gᵢ xᵢ with gᵢ ~ N(0, 1) over
//! the same p items ("Random weights").
//!
//! Each (series, p) is one stored record, so an interrupted study resumes.

use std::path::Path;

use anyhow::{Result, anyhow, bail};
use faer::Mat;
use hashbench_core::linalg::{mean_and_scatter, project_centered, top_eigenpairs};
use hashbench_core::registry::{Catalog, HyperplaneWeights};
use hashbench_core::seed::derive_seed;
use hashbench_data::Dataset;
use hashbench_eval::QueryValues;
use hashbench_eval::normality::{adjusted, anderson_darling, passes};
use rand::SeedableRng;
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use indicatif::ProgressBar;

use crate::Counts;
use crate::store::{self, NormalityRecord};
use hashbench_spec::{NormalitySpec, Plan};
use hashbench_tables::{MetricRow, QueryValueRow, ResultTables};

/// The version of the study's computation, part of its records' key: bump it
/// with a change that moves the statistics (2: the PCA reduction's signs fixed
/// by `top_eigenpairs`' convention).
const STUDY_VERSION: u32 = 2;

/// The pool: dense items, PCA-reduced when asked (PCA fitted on the pool).
fn pool(data: &Dataset, spec: &NormalitySpec) -> Result<Mat<f64>> {
    let x = data.x.as_dense().ok_or_else(|| {
        anyhow!(
            "dataset `{}` is {}; the normality study needs dense vectors",
            data.name,
            data.x.kind()
        )
    })?;
    let Some(d) = spec.reduce else {
        return Ok(x.to_owned());
    };
    if d > x.ncols() {
        bail!(
            "normality.reduce = {d} exceeds the {} dimensions of `{}`",
            x.ncols(),
            data.name
        );
    }
    let (mean, scatter) = mean_and_scatter(x);
    let (_, w) = top_eigenpairs(scatter.as_ref(), d)?;
    Ok(project_centered(x, &mean, w.as_ref()))
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (pos - lo as f64) * (sorted[hi] - sorted[lo])
}

/// A*² of one hyperplane of `series` at `p` (KLSH's weights drawn by
/// `klsh`, the catalog's).
fn one_hyperplane(
    (series, klsh): (&str, HyperplaneWeights),
    pool: &Mat<f64>,
    p: usize,
    spec: &NormalitySpec,
    rng: &mut ChaCha8Rng,
) -> Result<f64> {
    let d = pool.ncols();
    let r: Vec<f64> = match series {
        "True random" => (0..d).map(|_| StandardNormal.sample(rng)).collect(),
        _ => {
            let rows = sample(rng, pool.nrows(), p).into_vec();
            let xs = Mat::from_fn(p, d, |i, j| pool[(rows[i], j)]);
            let w: Vec<f64> = if series == "KLSH" {
                klsh(xs.as_ref(), spec.t(p), spec.rank_tolerance.get(), rng)?
            } else {
                (0..p).map(|_| StandardNormal.sample(rng)).collect()
            };
            (0..d)
                .map(|j| (0..p).map(|i| w[i] * xs[(i, j)]).sum())
                .collect()
        }
    };
    Ok(adjusted(anderson_darling(&r), d))
}

/// Runs (or resumes) the study of `plan` on `data`, storing records under
/// `dir`; KLSH's hyperplanes are drawn as the `catalog`'s KLSH draws them.
///
/// # Errors
/// A catalog without KLSH's hyperplanes, a pool smaller than the largest p,
/// or a failed record write.
pub fn run(
    (plan, catalog): (&Plan, &Catalog),
    spec: &NormalitySpec,
    data: &Dataset,
    (dir, force): (&Path, bool),
    refused: &store::Refusals,
) -> Result<(ResultTables, Counts, String)> {
    let klsh = catalog
        .hyperplane_weights("klsh")
        .ok_or_else(|| anyhow!("the catalog draws no KLSH hyperplanes (the normality study's)"))?;
    let pool = pool(data, spec)?;
    if let Some(&p) = spec.p.iter().find(|&&p| p > pool.nrows()) {
        bail!(
            "{}: p = {p} exceeds the {} items of `{}`",
            plan.spec_path.display(),
            pool.nrows(),
            data.name
        );
    }
    let context = format!(
        "{}|{:?}|{}|v{STUDY_VERSION}",
        data.fingerprint, spec, plan.seed
    );
    let jobs: Vec<(&str, usize)> = NormalitySpec::SERIES
        .iter()
        .flat_map(|&s| spec.p.iter().map(move |&p| (s, p)))
        .collect();
    let (records, computed) = studied(
        (plan, klsh),
        spec,
        &pool,
        &jobs,
        (dir, force),
        (&context, refused),
    )?;
    let mut tables = ResultTables {
        experiment: plan.id.clone(),
        profile: plan.profile.clone(),
        dataset: data.name.clone(),
        ..ResultTables::default()
    };
    for rec in &records {
        push_rows(&mut tables, spec, rec);
    }
    let about = format!(
        "pool: {} items of {} dimensions{}",
        pool.nrows(),
        pool.ncols(),
        spec.reduce
            .map_or(String::new(), |d| format!(" (PCA to {d})"))
    );
    let counts = Counts {
        fitted: computed,
        evaluated: computed,
        reused: jobs.len() - computed,
    };
    Ok((tables, counts, about))
}

/// Each (series, p) job's record: stored under `dir` (unless `force`) when
/// it holds under the study's `context`, else its hyperplanes tested and the
/// record stored. Returns the records in the jobs' order and how many were
/// computed.
fn studied(
    (plan, klsh): (&Plan, HyperplaneWeights),
    spec: &NormalitySpec,
    pool: &Mat<f64>,
    jobs: &[(&str, usize)],
    (dir, force): (&Path, bool),
    (context, refused): (&str, &store::Refusals),
) -> Result<(Vec<NormalityRecord>, usize)> {
    let path_of = |series: &str, p: usize| {
        dir.join("trials")
            .join(store::slug(series))
            .join(format!("p{p}.json"))
    };
    let fingerprint =
        |series: &str, p: usize| store::fingerprint(&[context, series, &p.to_string()]);
    let stored = jobs
        .iter()
        .map(|&(s, p)| {
            (!force).then(|| store::load(&path_of(s, p), &fingerprint(s, p), refused))?
        })
        .collect();
    store::resume(
        jobs,
        stored,
        |&(_, p)| p,
        |&(series, p)| {
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(
                plan.seed,
                &["normality", series, &p.to_string()],
            ));
            let statistics = (0..spec.hyperplanes)
                .map(|_| one_hyperplane((series, klsh), pool, p, spec, &mut rng))
                .collect::<Result<Vec<f64>>>()?;
            let rec = NormalityRecord {
                fingerprint: fingerprint(series, p),
                series: series.to_string(),
                p,
                statistics,
            };
            store::save(&path_of(series, p), &rec)?;
            Ok(rec)
        },
        &ProgressBar::hidden(),
    )
}

/// The rows of one (series, p) record: its success rate, the median and
/// quartiles of its statistics, and each hyperplane's pass or fail as the
/// success rate's per-query values.
fn push_rows(tables: &mut ResultTables, spec: &NormalitySpec, rec: &NormalityRecord) {
    let (series, p) = (rec.series.as_str(), rec.p);
    let mut sorted: Vec<f64> = rec
        .statistics
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    sorted.sort_by(f64::total_cmp);
    let passed = rec.statistics.iter().filter(|&&a| passes(a)).count();
    let values = [
        passed as f64 / rec.statistics.len() as f64,
        quantile(&sorted, 0.5),
        quantile(&sorted, 0.25),
        quantile(&sorted, 0.75),
    ];
    // each hyperplane's pass (1) or fail (0): the spread of the success rate
    tables.query_values.push(QueryValueRow {
        method: series.to_string(),
        bits: p,
        trial: 0,
        metric: NormalitySpec::METRICS[0].to_string(),
        values: QueryValues::mean(
            rec.statistics
                .iter()
                .map(|&a| f64::from(u8::from(passes(a)))),
        ),
    });
    for (metric, value) in NormalitySpec::METRICS.iter().zip(values) {
        tables.metrics.push(MetricRow {
            method: series.to_string(),
            params: format!("{spec:?}"),
            bits: p,
            trial: 0,
            metric: metric.to_string(),
            value,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::valid::Fraction;

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
    }

    #[test]
    fn klsh_hyperplanes_of_a_gaussian_pool_are_gaussian_and_raw_combinations_of_a_skewed_one_are_not()
     {
        // pool with very unequal column scales: random weights inherit them
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let pool = Mat::from_fn(2000, 32, |_, j| {
            let g: f64 = StandardNormal.sample(&mut rng);
            g * (1.0 + j as f64).powi(2)
        });
        let spec = NormalitySpec {
            p: vec![200],
            hyperplanes: 60,
            t_fraction: 0.2,
            reduce: None,
            rank_tolerance: Fraction::new(1e-10).unwrap(),
        };
        let rate = |series: &str| {
            let mut rng = ChaCha8Rng::seed_from_u64(2);
            (0..60)
                .filter(|_| {
                    let klsh = hashbench_methods::CATALOG
                        .hyperplane_weights("klsh")
                        .unwrap();
                    passes(one_hyperplane((series, klsh), &pool, 200, &spec, &mut rng).unwrap())
                })
                .count()
        };
        assert!(rate("KLSH") >= 48, "KLSH passed {}", rate("KLSH"));
        assert!(rate("True random") >= 48);
        assert!(
            rate("Random weights") <= 30,
            "random weights passed {}",
            rate("Random weights")
        );
    }
}
