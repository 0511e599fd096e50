#![doc = include_str!("../README.md")]

use faer::Mat;
use hashbench_core::linalg::for_each_column_mut;
use hashbench_core::valid::{NonNegative, Positive};
use hashbench_core::{BitCodes, Data, DataMismatch, ParamError};
use hashbench_simd::math::exp_in_place;
use serde::{Deserialize, Serialize};

mod blocks;

/// Kernel values a block of [`Kernel::codes_by_row_blocks`] holds: 2²² (32 MiB).
pub const BLOCK_ENTRIES: usize = 1 << 22;

use blocks::{
    MapEntries, check_non_negative, chi_square_distances, exp_of_scaled, gram_block,
    inner_products, minima, squared_distances,
};

/// A kernel's scale as written in a spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Scale {
    /// The value given directly.
    Fixed(Positive),
    /// Mean distance over all pairs of this many evenly spaced training items.
    MeanDistance(usize),
    /// Standard deviation of the distances over all pairs of this many evenly
    /// spaced training items (LAMP's literal "standard variation of
    /// ‖x_i − x_j‖").
    StdDistance(usize),
    /// Mean over `sample` evenly spaced training items of the distance to
    /// their `neighbour`-th nearest training item, the item itself counted
    /// first (the ITQ release's SIKH recipe: 50th of the sorted distances from
    /// 100 training items, `construct_data.m`).
    NeighbourDistance {
        /// Which neighbour, 1-based with the item itself first.
        neighbour: usize,
        /// How many training items it is measured from.
        sample: usize,
    },
    /// A multiple of another scale (`{ times = { factor = 0.5, of = { mean-distance = 1000 } } }`).
    Times {
        /// The multiplier.
        factor: Positive,
        /// The scale multiplied.
        of: Box<Scale>,
    },
}

impl Scale {
    fn validate(&self, field: &'static str) -> Result<(), ParamError> {
        match self {
            Scale::Times { of, .. } => of.validate(field),
            Scale::StdDistance(n) if *n < 2 => Err(ParamError::invalid(
                field,
                format!("{{ std-distance = {n} }}"),
                "needs at least two items",
            )),
            Scale::MeanDistance(n) if *n < 2 => Err(ParamError::invalid(
                field,
                format!("{{ mean-distance = {n} }}"),
                "needs at least two items",
            )),
            Scale::NeighbourDistance { neighbour, sample } if *neighbour < 2 || *sample < 1 => {
                Err(ParamError::invalid(
                    field,
                    format!(
                        "{{ neighbour-distance = {{ neighbour = {neighbour}, sample = {sample} }} }}"
                    ),
                    "needs a neighbour of 2 or more (the item itself is the first) and a sample of 1 or more",
                ))
            }
            _ => Ok(()),
        }
    }
}

/// A kernel as written in a spec (`kind = "..."`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum KernelSpec {
    /// xᵀy.
    Linear,
    /// exp(−‖x − y‖² / (2σ²)).
    Gaussian {
        /// σ.
        width: Scale,
    },
    /// exp(−χ²(x, y) / γ), KLSH eq. (10).
    ChiSquare {
        /// γ.
        gamma: Scale,
    },
    /// Σₖ min(xₖ, yₖ).
    Intersection,
    /// Σ weightᵢ Kᵢ.
    Sum {
        /// The weighted terms.
        terms: Vec<Term>,
    },
    /// Entries of the dataset's precomputed Gram matrix.
    Precomputed,
}

/// One term of a [`KernelSpec::Sum`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term {
    /// Non-negative weight.
    pub weight: NonNegative,
    /// The kernel.
    pub kernel: KernelSpec,
}

/// A kernel with every scale resolved to a number.
#[derive(Debug, Clone, PartialEq)]
pub enum Kernel {
    /// xᵀy.
    Linear,
    /// exp(−‖x − y‖² / (2σ²)).
    Gaussian {
        /// σ.
        sigma: f64,
    },
    /// exp(−χ²(x, y) / γ).
    ChiSquare {
        /// γ.
        gamma: f64,
    },
    /// Σₖ min(xₖ, yₖ).
    Intersection,
    /// Σ weightᵢ Kᵢ.
    Sum(Vec<(f64, Kernel)>),
    /// Entries of the precomputed Gram matrix.
    Precomputed,
}

/// Why a kernel cannot be evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    /// The kernel does not apply to this kind of data.
    #[error("the {kernel} kernel cannot be evaluated on {data}")]
    Unsupported {
        /// Kernel name.
        kernel: &'static str,
        /// Data kind.
        data: &'static str,
    },
    /// The two blocks are of different kinds or dimensions.
    #[error("kernel blocks disagree: {0}")]
    Mismatch(String),
    /// A histogram kernel met a negative entry.
    #[error("the {kernel} kernel needs non-negative data, found {value}")]
    Negative {
        /// Kernel name.
        kernel: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A scale policy could not be resolved.
    #[error("{0}")]
    Scale(String),
}

impl KernelSpec {
    /// Checks the parameters.
    ///
    /// # Errors
    /// The field at fault.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            KernelSpec::Gaussian { width } => width.validate("width"),
            KernelSpec::ChiSquare { gamma } => gamma.validate("gamma"),
            KernelSpec::Sum { terms } => {
                if terms.is_empty() {
                    return Err(ParamError::invalid("terms", "[]", "list at least one term"));
                }
                for t in terms {
                    t.kernel.validate()?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// [`KernelSpec::check_data`] as the data check of `method`, which reads
    /// what its kernel reads.
    ///
    /// # Errors
    /// A [`DataMismatch`] naming the method and the kernel's complaint.
    pub fn check_data_of(&self, method: &'static str, data: &Data) -> Result<(), DataMismatch> {
        self.check_data(data).map_err(|e| DataMismatch {
            method,
            needs: "data its kernel reads".into(),
            found: e.to_string(),
        })
    }

    /// Whether the kernel applies to this kind of data (checked before any
    /// trial runs): `precomputed` reads a Gram matrix only, every other kernel
    /// reads vectors (dense or sparse).
    ///
    /// # Errors
    /// [`KernelError::Unsupported`] naming the kernel and the data kind.
    pub fn check_data(&self, data: &Data) -> Result<(), KernelError> {
        let is_gram = matches!(data, Data::Gram(_));
        match self {
            KernelSpec::Sum { terms } => terms.iter().try_for_each(|t| t.kernel.check_data(data)),
            KernelSpec::Precomputed if !is_gram => Err(KernelError::Unsupported {
                kernel: "precomputed",
                data: data.kind(),
            }),
            KernelSpec::Precomputed => Ok(()),
            _ if is_gram => Err(KernelError::Unsupported {
                kernel: self.name(),
                data: "a precomputed Gram matrix (use kind = \"precomputed\")",
            }),
            _ => Ok(()),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            KernelSpec::Linear => "linear",
            KernelSpec::Gaussian { .. } => "Gaussian",
            KernelSpec::ChiSquare { .. } => "chi-square",
            KernelSpec::Intersection => "intersection",
            KernelSpec::Sum { .. } => "sum",
            KernelSpec::Precomputed => "precomputed",
        }
    }

    /// Resolves scale policies on the training items `train`.
    ///
    /// # Errors
    /// Invalid parameters, a policy that does not apply to the data, or
    /// training items that are all identical.
    pub fn resolve(&self, train: &Data) -> Result<Kernel, KernelError> {
        self.validate()
            .map_err(|e| KernelError::Scale(e.to_string()))?;
        Ok(match self {
            KernelSpec::Linear => Kernel::Linear,
            KernelSpec::Intersection => Kernel::Intersection,
            KernelSpec::Precomputed => Kernel::Precomputed,
            KernelSpec::Gaussian { width } => Kernel::Gaussian {
                sigma: resolve_scale(width, train, "Gaussian width", |a, b| {
                    Ok(squared_distances(a, b)?.map(|d| d.sqrt()))
                })?,
            },
            KernelSpec::ChiSquare { gamma } => Kernel::ChiSquare {
                gamma: resolve_scale(gamma, train, "chi-square gamma", chi_square_distances)?,
            },
            KernelSpec::Sum { terms } => Kernel::Sum(
                terms
                    .iter()
                    .map(|t| Ok((t.weight.get(), t.kernel.resolve(train)?)))
                    .collect::<Result<_, KernelError>>()?,
            ),
        })
    }
}

fn resolve_scale(
    scale: &Scale,
    train: &Data,
    what: &str,
    distances: impl Fn(&Data, &Data) -> Result<Mat<f64>, KernelError>,
) -> Result<f64, KernelError> {
    let spread = |n: usize, policy: &str| -> Result<(f64, f64), KernelError> {
        let sample = evenly_spaced(train, n);
        let m = sample.n_items();
        if m < 2 {
            return Err(KernelError::Scale(format!(
                "{what}: the {policy} policy needs two training items, got {m}"
            )));
        }
        let d = distances(&sample, &sample)?;
        let pairs = (m * (m - 1) / 2) as f64;
        let mut total = 0.0;
        for j in 0..m {
            for i in j + 1..m {
                total += d[(i, j)];
            }
        }
        let mean = total / pairs;
        let mut squares = 0.0;
        for j in 0..m {
            for i in j + 1..m {
                squares += (d[(i, j)] - mean) * (d[(i, j)] - mean);
            }
        }
        Ok((mean, (squares / pairs).sqrt()))
    };
    let positive = |v: f64, policy: &str| {
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(KernelError::Scale(format!(
                "{what}: {policy} is {v} over the sampled training pairs (items all identical, or all equally far apart?)"
            )))
        }
    };
    let value = match scale {
        Scale::Fixed(v) => Ok(v.get()),
        Scale::MeanDistance(n) => positive(spread(*n, "mean-distance")?.0, "the mean distance"),
        Scale::StdDistance(n) => positive(
            spread(*n, "std-distance")?.1,
            "the standard deviation of the distances",
        ),
        Scale::NeighbourDistance { neighbour, sample } => {
            let total = train.n_items();
            if *neighbour > total {
                return Err(KernelError::Scale(format!(
                    "{what}: the neighbour-distance policy asks for neighbour {neighbour} of {total} training items"
                )));
            }
            let from = evenly_spaced(train, *sample);
            let d = distances(&from, train)?;
            let mut row = vec![0.0; total];
            let mut sum = 0.0;
            for i in 0..from.n_items() {
                row.iter_mut().enumerate().for_each(|(j, v)| *v = d[(i, j)]);
                let (_, kth, _) = row.select_nth_unstable_by(neighbour - 1, f64::total_cmp);
                sum += *kth;
            }
            positive(sum / from.n_items() as f64, "the mean neighbour distance")
        }
        Scale::Times { factor, of } => {
            Ok(factor.get() * resolve_scale(of, train, what, distances)?)
        }
    }?;
    if !(MIN_SCALE..=MAX_SCALE).contains(&value) {
        return Err(KernelError::Scale(format!(
            "{what} resolves to {value:e}, outside [{MIN_SCALE:e}, {MAX_SCALE:e}]: the kernel's exponent under- or overflows there (every kernel value 0 or 1)"
        )));
    }
    Ok(value)
}

/// The smallest and largest resolved scale: beyond them the square of a
/// Gaussian width (or a chi-square γ's reciprocal) leaves f64's normal range.
const MIN_SCALE: f64 = 1e-150;
const MAX_SCALE: f64 = 1e150;

/// `n` items of `data` at evenly spaced positions (all of them when `n` ≥ size).
fn evenly_spaced(data: &Data, n: usize) -> Data {
    let total = data.n_items();
    let rows: Vec<usize> = if n >= total {
        (0..total).collect()
    } else {
        (0..n).map(|k| k * total / n).collect()
    };
    data.select(&rows)
}

impl Kernel {
    /// Name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Kernel::Linear => "linear",
            Kernel::Gaussian { .. } => "Gaussian",
            Kernel::ChiSquare { .. } => "chi-square",
            Kernel::Intersection => "intersection",
            Kernel::Sum(_) => "sum",
            Kernel::Precomputed => "precomputed",
        }
    }

    /// Codes of the items of `a`, whose bit j is `project`(K(a, b))ᵢⱼ > 0,
    /// computed over blocks of `a`'s rows: `project` maps a block of K's rows
    /// to its rows of projections (one column per bit). K(a, b) whole is never
    /// held, so encoding 10⁶ items against a few thousand support items costs
    /// a block (about [`BLOCK_ENTRIES`] values), not 8 n p bytes. Each row's
    /// kernel values and projections are those of the whole product.
    ///
    /// # Errors
    /// As [`Kernel::block`].
    pub fn codes_by_row_blocks(
        &self,
        a: &Data,
        b: &Data,
        n_bits: usize,
        project: impl FnMut(Mat<f64>) -> Mat<f64>,
    ) -> Result<BitCodes, KernelError> {
        self.codes_in_blocks(a, b, n_bits, BLOCK_ENTRIES, project)
    }

    /// [`Kernel::codes_by_row_blocks`] with blocks of about `entries` values.
    fn codes_in_blocks(
        &self,
        a: &Data,
        b: &Data,
        n_bits: usize,
        entries: usize,
        mut project: impl FnMut(Mat<f64>) -> Mat<f64>,
    ) -> Result<BitCodes, KernelError> {
        let n = a.n_items();
        let rows = (entries / b.n_items().max(1)).max(1);
        if rows >= n {
            // one block: `a` as it is, not a copy of it
            return Ok(BitCodes::from_projections(
                project(self.block(a, b)?).as_ref(),
            ));
        }
        let mut codes = BitCodes::zeros(0, n_bits);
        for start in (0..n).step_by(rows) {
            let block: Vec<usize> = (start..(start + rows).min(n)).collect();
            let k = self.block(&a.select(&block), b)?;
            codes.append(&BitCodes::from_projections(project(k).as_ref()));
        }
        Ok(codes)
    }

    /// The block K(a, b): entry (i, j) is k(aᵢ, bⱼ).
    ///
    /// # Errors
    /// Blocks of different kinds or dimensions, a kernel that does not apply to
    /// the data kind, or negative entries for a histogram kernel.
    pub fn block(&self, a: &Data, b: &Data) -> Result<Mat<f64>, KernelError> {
        match self {
            Kernel::Precomputed => gram_block(a, b),
            _ if matches!(a, Data::Gram(_)) || matches!(b, Data::Gram(_)) => {
                Err(KernelError::Unsupported {
                    kernel: self.name(),
                    data: "a precomputed Gram matrix (use kind = \"precomputed\")",
                })
            }
            Kernel::Linear => inner_products(a, b),
            Kernel::Gaussian { sigma } => {
                let s = -0.5 / (sigma * sigma);
                Ok(exp_of_scaled(squared_distances(a, b)?, s))
            }
            Kernel::ChiSquare { gamma } => {
                Ok(exp_of_scaled(chi_square_distances(a, b)?, -1.0 / gamma))
            }
            Kernel::Intersection => {
                check_non_negative("intersection", a)?;
                check_non_negative("intersection", b)?;
                minima(a, b)
            }
            Kernel::Sum(terms) => {
                // the Gaussian terms share one pass over the squared distances
                let gaussians: Vec<(f64, f64)> = terms
                    .iter()
                    .filter_map(|(w, k)| match k {
                        Kernel::Gaussian { sigma } => Some((*w, -0.5 / (sigma * sigma))),
                        _ => None,
                    })
                    .collect();
                let mut out = Mat::zeros(a.n_items(), b.n_items());
                if !gaussians.is_empty() {
                    // Σ w·exp(s·d) entry by entry, one column of d at a time
                    let d = squared_distances(a, b)?;
                    let mut term = vec![0.0; d.nrows()];
                    for_each_column_mut(&mut out, |j, column| {
                        for &(w, s) in &gaussians {
                            term.iter_mut()
                                .zip(d.col(j).iter())
                                .for_each(|(t, &x)| *t = s * x);
                            exp_in_place(&mut term);
                            column.iter_mut().zip(&term).for_each(|(o, &e)| *o += w * e);
                        }
                    });
                }
                for (w, k) in terms {
                    if !matches!(k, Kernel::Gaussian { .. }) {
                        out += k.block(a, b)? * faer::Scale(*w);
                    }
                }
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests;
