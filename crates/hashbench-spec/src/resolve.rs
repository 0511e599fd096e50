//! Resolving a profile's protocol into a [`Plan`]: every check that needs
//! no data: the
//! id, the study's own fields (split, ground truth, metrics and methods, or
//! the normality study's), the axis, the plan's size and every name the
//! figures, claims and reported numbers use.

use anyhow::{Result, anyhow, bail};
use hashbench_claims::ClaimSpec;
use hashbench_core::registry::Catalog;
use hashbench_data::TruthRule;
use hashbench_eval::MetricSpec;

use super::plan::Axis;
use super::{
    Deviation, MethodEntry, NormalitySpec, Plan, Protocol, Retrieval, Spec, Study, TIMING_METRICS,
    TuneOn, validate,
};

/// The most trials a plan may hold (code lengths × trials × methods): a
/// bound far above any paper's protocol that refuses a typo before anything
/// is allocated.
const MAX_PLANNED_TRIALS: usize = 1_000_000;
/// The most timed refits a point takes: each round refits every method at
/// every point, one at a time.
const MAX_TIMING_REPEATS: usize = 20;
/// The fewest timing refits a spec may ask for (besides 0, none).
const MIN_TIMING_REPEATS: usize = 5;
/// The longest id or profile name: each names a folder of the results.
const MAX_NAME_LEN: usize = 64;

impl Spec {
    /// Resolves `profile` into a validated plan, its methods read by `catalog`.
    ///
    /// # Errors
    /// An unknown profile, an unknown method, or any invalid value, with
    /// file and line.
    pub fn plan(&self, profile: &str, catalog: &'static Catalog) -> Result<Plan> {
        let laid = self.protocol(profile).ok_or_else(|| {
            anyhow!(
                "{}: no profile `{profile}` (profiles: {})",
                self.path.display(),
                self.profiles().join(", ")
            )
        })?;
        self.check_id()?;
        // before the methods, which inherit it
        if let Some(k) = &laid.kernel {
            k.validate()
                .map_err(|e| anyhow!("{}: kernel: {e}", self.path.display()))?;
        }
        let (axis, study) = match &laid.normality {
            Some(n) => (
                Axis::P(n.p.clone()),
                self.normality_study(n, laid, profile)?,
            ),
            None => self.retrieval_study(laid, profile, catalog)?,
        };
        self.check_size(axis.values(), laid, profile)?;
        let claims = self.claims_under_readings(laid)?;
        self.check_references(
            laid,
            &claims,
            &self.names(laid, &study),
            axis.values(),
            profile,
        )?;
        Ok(Plan {
            spec_path: self.path.clone(),
            spec_sha256: self.sha256(),
            method_set: self.method_set.as_ref().map(|m| m.path.clone()),
            drawn_by: self.source.drawn.as_ref().map(|d| d.path.clone()),
            id: laid.id.clone(),
            title: laid.title.clone(),
            paper: laid.paper.clone(),
            profile: profile.to_string(),
            deviation: laid.deviation.as_ref().map(Deviation::text),
            seed: laid.seed,
            axis,
            trials: laid.trials,
            timing_repeats: laid.timing_repeats,
            centre: laid.centre,
            dataset: laid.dataset.clone(),
            figures: laid.figures.iter().map(|f| f.get_ref().clone()).collect(),
            claims,
            readings: Self::readings_run(laid),
            reported: laid.reported.iter().map(|r| r.get_ref().clone()).collect(),
            tolerance: laid.tolerance.map_or(1e-6, |t| t.get()),
            kernel: laid.kernel.clone(),
            graph_features: laid.graph_features,
            transform: laid.transform.clone(),
            study,
        })
    }

    /// The readings this experiment runs (a figure's reading may name the
    /// panels that run it).
    fn readings_run(laid: &Protocol) -> Vec<hashbench_claims::Reading> {
        Self::readings_in(laid).map(|(_, r)| r.clone()).collect()
    }

    /// [`Self::readings_run`], each with the byte offset it is declared at
    /// (for errors).
    pub(super) fn readings_in(
        laid: &Protocol,
    ) -> impl Iterator<Item = (usize, &hashbench_claims::Reading)> + '_ {
        laid.readings
            .iter()
            .filter(|r| r.get_ref().runs_in(&laid.id))
            .map(|r| (r.span().start, r.get_ref()))
    }

    /// The claims, each with its diagnosis and resolved under every reading
    /// the spec declares.
    ///
    /// # Errors
    /// A malformed reading, one declared twice, or a claim's reading the
    /// spec does not declare or that changes nothing; each names its place.
    fn claims_under_readings(&self, laid: &Protocol) -> Result<Vec<ClaimSpec>> {
        let mut ids = std::collections::BTreeSet::new();
        for r in &laid.readings {
            let at = self.at(r.span().start);
            if let Some(why) = r.get_ref().refusal() {
                bail!("{at}: {why}");
            }
            if !ids.insert(r.get_ref().id.as_str()) {
                bail!("{at}: reading `{}` is declared twice", r.get_ref().id);
            }
        }
        let readings = Self::readings_run(laid);
        let truth = laid.ground_truth.as_ref().map_or("none", TruthRule::rule);
        laid.claims
            .iter()
            .map(|c| {
                let mut claim = c.get_ref().clone();
                claim.diagnosis = self.diagnoses.of(&claim.id);
                claim
                    .given_truth(truth)
                    .and_then(|()| claim.resolve_readings(&readings))
                    .map_err(|why| anyhow!("{}: {why}", self.at(c.span().start)))?;
                Ok(claim)
            })
            .collect()
    }

    /// The id and every profile name name folders of the results: letters,
    /// digits and '-' only, so none can escape them.
    fn check_id(&self) -> Result<()> {
        let safe = |name: &str| {
            !name.is_empty()
                && name.len() <= MAX_NAME_LEN
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        };
        let id = &self.paper.id;
        if !safe(id) {
            bail!(
                "{}: id = {id:?} must be 1 to {MAX_NAME_LEN} letters, digits and '-'",
                self.path.display()
            );
        }
        if crate::workspace::RESERVED_FOLDERS.contains(&id.as_str()) {
            bail!(
                "{}: id = {id:?} names a folder hashbench keeps in the results for itself ({}); choose another id",
                self.path.display(),
                crate::workspace::RESERVED_FOLDERS.join(", ")
            );
        }
        if let Some(name) = self.declared.keys().find(|p| !safe(p)) {
            // its header, in the spec or a shared file
            let text = &self.source.text;
            let at = [format!("[profiles.{name}]"), format!("[profiles.{name:?}]")]
                .iter()
                .find_map(|header| text.find(header.as_str()))
                .or_else(|| text.find(name.as_str()))
                .unwrap_or(0);
            bail!(
                "{}: profile name {name:?} must be 1 to {MAX_NAME_LEN} letters, digits and '-' (it names a folder of the results)",
                self.at(at)
            );
        }
        Ok(())
    }

    /// A normality study: its p values stand where code lengths would.
    fn normality_study(&self, n: &NormalitySpec, laid: &Protocol, profile: &str) -> Result<Study> {
        let file = self.path.display();
        if !laid.bits.is_empty()
            || laid.split.is_some()
            || laid.ground_truth.is_some()
            || !self.method_tables().is_empty()
            || !laid.method_params.is_empty()
            || !laid.metrics.is_empty()
            || !laid.training_sizes.is_empty()
            || laid.tune_on != TuneOn::default()
        {
            bail!(
                "{file}: a [normality] study takes its p values from [normality]; remove bits, training_sizes, split, tune_on, ground_truth, methods and metrics (profile `{profile}`)"
            );
        }
        if laid.trials != 1 {
            bail!(
                "{file}: trials = {}: a [normality] study draws `hyperplanes` per p instead (profile `{profile}`)",
                laid.trials
            );
        }
        n.validate()
            .map_err(|e| anyhow!("{file}: normality: {e}"))?;
        check_distinct(&file, "p", &n.p, profile)?;
        Ok(Study::Normality(n.clone()))
    }

    /// A retrieval study and its x axis (code lengths, or a sweep's
    /// training-set sizes).
    fn retrieval_study(
        &self,
        laid: &Protocol,
        profile: &str,
        catalog: &'static Catalog,
    ) -> Result<(Axis, Study)> {
        let file = self.path.display();
        let split = laid
            .split
            .clone()
            .ok_or_else(|| anyhow!("{file}: missing field `split`"))?;
        split
            .validate()
            .map_err(|e| anyhow!("{file}: {e} (profile `{profile}`)"))?;
        let ground_truth = laid
            .ground_truth
            .clone()
            .ok_or_else(|| anyhow!("{file}: missing field `ground_truth`"))?;
        check_code_lengths(&file, &laid.bits, profile)?;
        check_distinct(&file, "bits", &laid.bits, profile)?;
        check_distinct(&file, "training_sizes", &laid.training_sizes, profile)?;
        // a sweep's axis takes the place of the code lengths
        let axis = if laid.training_sizes.is_empty() {
            Axis::CodeLengths(laid.bits.clone())
        } else {
            if laid.bits.len() != 1 || laid.training_sizes.contains(&0) || split.per_trial {
                bail!(
                    "{file}: training_sizes = {:?} sweeps positive training-set sizes at one code length (bits = {:?}) on one split (no per_trial) (profile `{profile}`)",
                    laid.training_sizes,
                    laid.bits
                );
            }
            Axis::TrainingSizes {
                sizes: laid.training_sizes.clone(),
                bits: laid.bits[0],
            }
        };
        if laid.tune_on == TuneOn::FirstDraw && !split.per_trial {
            bail!(
                "{file}: tune_on = \"first-draw\" reuses the first draw's tuning in later draws; it needs split.per_trial = true (profile `{profile}`)"
            );
        }
        ground_truth
            .validate()
            .map_err(|e| anyhow!("{file}: {e}"))?;
        if ground_truth.needs_kernel() && laid.kernel.is_none() {
            bail!(
                "{file}: ground_truth ranks by the experiment's kernel (by = \"kernel\"); give the spec a top-level `kernel`"
            );
        }
        for (i, m) in laid.metrics.iter().enumerate() {
            if laid.metrics[..i].contains(m) {
                bail!(
                    "{file}: metric {m:?} is listed twice: its rows would count twice and shrink the spread"
                );
            }
            check_metric(&file, m, &ground_truth, laid.kernel.is_some())?;
            check_radius(&file, m, &laid.bits, profile)?;
        }
        let served = super::grid::Served {
            truth: &ground_truth,
            metrics: &laid.metrics,
            tuned_for: laid.tuned_for.as_deref(),
        };
        let methods = self.methods(catalog, laid.kernel.as_ref(), &laid.method_params, &served)?;
        self.check_tuned_swaps(laid, &methods)?;
        let study = Study::Retrieval(Box::new(Retrieval {
            split,
            tune_on: laid.tune_on,
            ground_truth,
            shared_trial_seeds: laid.shared_trial_seeds,
            methods,
            metrics: laid.metrics.clone(),
        }));
        Ok((axis, study))
    }

    /// A reading that scores the metric a method's search serves (its
    /// `tuned_for`) as another metric, and swaps in a second method for it,
    /// swaps in one whose search serves that other metric: the swapped-in
    /// codes are then scored as they were tuned, and a variant's `tuned_for`
    /// cannot drift from the reading's swap unnoticed. A reading that swaps
    /// a method alone (a variant preprocessed or cross-validated otherwise,
    /// scored as the default is) and a claim's own `swap` are not checked.
    ///
    /// # Errors
    /// The reading's place, the two metrics and the method swapped in.
    fn check_tuned_swaps(&self, laid: &Protocol, methods: &[MethodEntry]) -> Result<()> {
        let tuned_for = |label: &str| {
            methods
                .iter()
                .find(|m| m.label == label)
                .and_then(|m| m.tuned_for.as_deref())
        };
        for (offset, reading) in Self::readings_in(laid) {
            for (from, to) in &reading.swap {
                let (Some(was), Some(now)) = (tuned_for(from), tuned_for(to)) else {
                    continue;
                };
                if let Some(wanted) = reading.swap.get(was)
                    && now != wanted
                {
                    bail!(
                        "{}: reading `{}` scores `{was}`, which {from}'s search serves, as `{wanted}`, and swaps in {to}, whose search serves `{now}`: give {to} `tuned_for = \"{wanted}\"`, or swap in a method tuned for it",
                        self.at(offset),
                        reading.id
                    );
                }
            }
        }
        Ok(())
    }

    /// Trials are at least one, and the plan's trials and timing repeats
    /// within bounds.
    fn check_size(&self, bits: &[usize], laid: &Protocol, profile: &str) -> Result<()> {
        let file = self.path.display();
        let methods = self.method_tables().len();
        let trials = laid.trials;
        if trials == 0 {
            bail!("{file}: trials must be at least 1 (profile `{profile}`)");
        }
        if (1..MIN_TIMING_REPEATS).contains(&laid.timing_repeats) {
            bail!(
                "{file}: timing_repeats = {} is fewer than {MIN_TIMING_REPEATS} (profile `{profile}`): a timing claim is judged on the spread of the refits, which a few cannot show (0 turns the refits off)",
                laid.timing_repeats
            );
        }
        if laid.timing_repeats > MAX_TIMING_REPEATS {
            bail!(
                "{file}: timing_repeats = {} is more than {MAX_TIMING_REPEATS} (profile `{profile}`): each repeat refits every method at every point alone",
                laid.timing_repeats
            );
        }
        let planned = bits
            .len()
            .checked_mul(trials)
            .and_then(|n| n.checked_mul(methods.max(1)));
        if planned.is_none_or(|n| n > MAX_PLANNED_TRIALS) {
            bail!(
                "{file}: {} code lengths x {trials} trials x {methods} methods plan more than {MAX_PLANNED_TRIALS} trials (profile `{profile}`)",
                bits.len(),
            );
        }
        Ok(())
    }

    /// The labels, scalars and curves a study's figures, claims and
    /// reported numbers may name.
    fn names(&self, laid: &Protocol, study: &Study) -> validate::Names {
        let to_strings = |names: &[&str]| -> std::collections::BTreeSet<String> {
            names.iter().map(|s| s.to_string()).collect()
        };
        let metrics = &laid.metrics;
        let curves = |methods: &[MethodEntry]| {
            metrics
                .iter()
                .flat_map(|m| m.curve_names())
                .chain(methods.iter().flat_map(|m| {
                    m.spec
                        .registration()
                        .fit_log
                        .per_bit
                        .iter()
                        .map(|s| s.to_string())
                }))
                .collect()
        };
        match study {
            Study::Normality(_) => validate::Names {
                labels: to_strings(&NormalitySpec::SERIES),
                scalars: to_strings(&NormalitySpec::METRICS),
                curves: curves(&[]),
            },
            Study::Retrieval(r) => validate::Names {
                labels: r.methods.iter().map(|m| m.label.clone()).collect(),
                scalars: metrics
                    .iter()
                    .flat_map(|m| m.scalar_names())
                    .chain(TIMING_METRICS.iter().map(|s| s.to_string()))
                    .chain(r.methods.iter().flat_map(|m| {
                        let log = m.spec.registration().fit_log;
                        log.facts.iter().chain(log.seconds).map(|s| s.to_string())
                    }))
                    .collect(),
                curves: curves(&r.methods),
            },
        }
    }
}

/// Code lengths are positive and no longer than a Hamming evaluation takes.
fn check_code_lengths(file: &impl std::fmt::Display, bits: &[usize], profile: &str) -> Result<()> {
    if bits.is_empty() || bits.contains(&0) {
        bail!("{file}: bits = {bits:?} must list positive code lengths (profile `{profile}`)");
    }
    if let Some(&long) = bits.iter().find(|&&b| b > hashbench_core::scan::MAX_BITS) {
        bail!(
            "{file}: bits = {long} is longer than the {} bits a Hamming evaluation takes (profile `{profile}`)",
            hashbench_core::scan::MAX_BITS
        );
    }
    Ok(())
}

/// An x axis lists each value once: every value is its own column of trials.
fn check_distinct(
    file: &impl std::fmt::Display,
    what: &str,
    list: &[usize],
    profile: &str,
) -> Result<()> {
    if let Some(twice) = list
        .iter()
        .find(|&&b| list.iter().filter(|&&c| c == b).count() > 1)
    {
        bail!(
            "{file}: {what} lists {twice} twice: every value is its own column of trials (profile `{profile}`)"
        );
    }
    Ok(())
}

/// A metric policy is valid and has what it reads: a kernel to re-rank by,
/// a ground truth, class labels to vote with.
fn check_metric(
    file: &impl std::fmt::Display,
    m: &MetricSpec,
    ground_truth: &TruthRule,
    has_kernel: bool,
) -> Result<()> {
    m.validate().map_err(|e| anyhow!("{file}: metrics: {e}"))?;
    if m.needs_kernel() && !has_kernel {
        bail!("{file}: metrics: {m:?} re-ranks by a kernel; give the spec a top-level `kernel`");
    }
    if m.reads_truth() && matches!(ground_truth, TruthRule::None) {
        bail!(
            "{file}: metrics: {m:?} reads the ground truth; ground_truth.rule = \"none\" gives none"
        );
    }
    if matches!(
        m,
        MetricSpec::KnnAccuracy { .. } | MetricSpec::HammingKnn { .. }
    ) && !matches!(ground_truth, TruthRule::SameLabel)
    {
        bail!(
            "{file}: metrics: {m:?} votes with class labels; use ground_truth = {{ rule = \"same-label\" }}"
        );
    }
    Ok(())
}

/// A ball's radius lies below the longest code length: at or above every
/// one, the ball holds the whole database at every point and the metric is
/// the base rate, whatever the codes. (Below some lengths only is a
/// paper's own choice, SpaH Fig. 7's radius 32 at 16 bits: the summary
/// flags those points.)
fn check_radius(
    file: &impl std::fmt::Display,
    m: &MetricSpec,
    bits: &[usize],
    profile: &str,
) -> Result<()> {
    if let (Some(radius), Some(&long)) = (m.radius(), bits.iter().max())
        && radius as usize >= long
    {
        bail!(
            "{file}: metrics: radius = {radius} is at or above every code length (the longest is {long} bits): the ball would hold the whole database at every point (use a radius below {long}) (profile `{profile}`)"
        );
    }
    Ok(())
}
