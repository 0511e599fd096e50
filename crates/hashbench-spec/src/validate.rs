//! Cross-checks of what figures, claims and reported numbers name against
//! what a plan produces: method labels, scalar metrics, curves and the code
//! lengths the profile runs. A mismatch is an error before any trial, not an
//! empty figure or an unchecked claim.

use std::collections::BTreeSet;

use anyhow::{Result, bail};

use toml::Spanned;

use super::{ClaimSpec, FigureSpec, Protocol, Reported, Spec, join};

/// What a plan produces.
pub(super) struct Names {
    /// Method (or series) labels.
    pub labels: BTreeSet<String>,
    /// Scalar metric names.
    pub scalars: BTreeSet<String>,
    /// Curve names.
    pub curves: BTreeSet<String>,
}

impl Names {
    fn curve(&self, at: &str, what: &str, curve: &str) -> Result<()> {
        if !self.curves.contains(curve) {
            bail!(
                "{at}: {what} names curve `{curve}`, not produced by this spec's metrics ({})",
                join(&self.curves)
            );
        }
        Ok(())
    }
}

impl Spec {
    /// Checks every figure, reported number and claim against `names` and the
    /// profile's code lengths `bits`.
    ///
    /// # Errors
    /// The first mismatch, with file and line.
    pub(super) fn check_references(
        &self,
        laid: &Protocol,
        claims: &[ClaimSpec],
        names: &Names,
        bits: &[usize],
        profile: &str,
    ) -> Result<()> {
        let mut stems = BTreeSet::new();
        for f in &laid.figures {
            // a file stem under figures/: no path, no hidden file, no overwrite
            let name = &f.get_ref().name;
            let stem = !name.is_empty()
                && !name.starts_with('.')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
            if !stem {
                bail!(
                    "{}: figure name {name:?} is not a file name (letters, digits and `_ . -`, not starting with `.`)",
                    self.at(f.span().start)
                );
            }
            if !stems.insert(name.clone()) {
                bail!(
                    "{}: two figures are named `{name}`: the second would overwrite the first",
                    self.at(f.span().start)
                );
            }
            self.check_figure(f, names, bits, profile)?;
        }
        for r in &laid.reported {
            self.check_reported(r, names)?;
        }
        // every name a reading swaps here is one of this experiment's: a
        // misspelt name would leave the reading re-scoring the default
        for (at, run) in Self::readings_in(laid) {
            let unknown = run.swap.keys().find(|k| {
                !(names.labels.contains(*k)
                    || names.scalars.contains(*k)
                    || names.curves.contains(*k))
            });
            if let Some(k) = unknown {
                bail!(
                    "{}: reading `{}` swaps `{k}`, which is no method label, metric or curve of this spec",
                    self.at(at),
                    run.id
                );
            }
        }
        let mut ids = BTreeSet::new();
        // each claim as written (for its place) and resolved under the readings
        for (c, resolved) in laid.claims.iter().zip(claims) {
            let claim = (c.span().start, resolved);
            self.check_claim(claim, &laid.metrics, &mut ids, names, bits, profile)?;
        }
        Ok(())
    }

    /// A figure panel names one kind of panel and what this spec writes.
    fn check_figure(
        &self,
        f: &Spanned<FigureSpec>,
        names: &Names,
        bits: &[usize],
        profile: &str,
    ) -> Result<()> {
        let at = self.at(f.span().start);
        let fig = f.get_ref();
        let what = format!("figure `{}`", fig.name);
        if let Some(pr) = &fig.pr_points {
            if fig.metric.is_some()
                || fig.curve.is_some()
                || fig.bits.is_some()
                || !fig.metrics.is_empty()
            {
                bail!(
                    "{at}: {what}: `pr_points` stands alone; remove `metric`, `metrics`, `curve` and `bits`"
                );
            }
            if let Some(m) = [&pr.precision, &pr.recall]
                .into_iter()
                .find(|m| !names.scalars.contains(*m))
            {
                bail!(
                    "{at}: {what}: metric `{m}` is not produced by this spec's metrics ({})",
                    join(&names.scalars)
                );
            }
            return Ok(());
        }
        if !fig.metrics.is_empty() {
            if fig.metric.is_some() || fig.curve.is_some() || fig.bits.is_some() {
                bail!("{at}: {what}: `metrics` stands alone; remove `metric`, `curve` and `bits`");
            }
            if let Some(m) = fig.metrics.iter().find(|m| !names.scalars.contains(*m)) {
                bail!(
                    "{at}: {what}: metric `{m}` is not produced by this spec's metrics ({})",
                    join(&names.scalars)
                );
            }
            return Ok(());
        }
        match (&fig.metric, &fig.curve, fig.bits) {
            (Some(m), None, None) => {
                if !names.scalars.contains(m) {
                    bail!(
                        "{at}: {what}: metric `{m}` is not produced by this spec's metrics ({})",
                        join(&names.scalars)
                    );
                }
            }
            (Some(_), None, Some(_)) => {
                bail!("{at}: {what}: a metric panel spans every code length; remove `bits`")
            }
            (None, Some(c), Some(b)) => {
                names.curve(&at, &what, c)?;
                runs(&at, &what, b, bits, profile)?;
            }
            (None, Some(_), None) => bail!("{at}: {what}: a curve panel needs `bits`"),
            _ => bail!("{at}: {what}: give exactly one of `metric`, `metrics` and `curve`"),
        }
        if let Some(r) = &fig.reference {
            names.curve(&at, &what, r)?;
        }
        Ok(())
    }

    /// A reported number names a label and a scalar of this spec.
    fn check_reported(&self, r: &Spanned<Reported>, names: &Names) -> Result<()> {
        let at = self.at(r.span().start);
        let r = r.get_ref();
        if !names.labels.contains(&r.method) {
            bail!(
                "{at}: reported value names method `{}`, not a label of this spec ({})",
                r.method,
                join(&names.labels)
            );
        }
        if !names.scalars.contains(&r.metric) {
            bail!(
                "{at}: reported value names metric `{}`, not produced by this spec's metrics ({})",
                r.metric,
                join(&names.scalars)
            );
        }
        if let Some(p) = &r.on_curve {
            names.curve(&at, "reported value", &p.curve)?;
        }
        Ok(())
    }

    /// A claim has its own id and names what this spec writes at code
    /// lengths the profile runs (unless not testable on it).
    fn check_claim(
        &self,
        (offset, claim): (usize, &ClaimSpec),
        spec_metrics: &[hashbench_eval::MetricSpec],
        ids: &mut BTreeSet<String>,
        names: &Names,
        bits: &[usize],
        profile: &str,
    ) -> Result<()> {
        let at = self.at(offset);
        if !ids.insert(claim.id.clone()) {
            bail!("{at}: claim id `{}` is used twice in this spec", claim.id);
        }
        if claim
            .testable
            .as_ref()
            .is_some_and(|p| !p.contains(&profile.to_string()))
        {
            // not testable on this profile: it reads nothing of it
            return Ok(());
        }
        // the claim, and each other reading judged beside it
        let readings = std::iter::once(("claim".to_string(), &claim.kind)).chain(
            claim
                .readings
                .iter()
                .map(|r| (format!("reading `{}`", r.id), &r.kind)),
        );
        for (what, kind) in readings {
            let (methods, metrics) = kind.names();
            if let Some(method) = methods.into_iter().find(|m| !names.labels.contains(*m)) {
                bail!(
                    "{at}: claim `{}`: its {what} names method `{method}`, not a label of this spec ({})",
                    claim.id,
                    join(&names.labels)
                );
            }
            if let Some(metric) = metrics.into_iter().find(|m| !names.scalars.contains(*m)) {
                bail!(
                    "{at}: claim `{}`: its {what} names metric `{metric}`, not produced by this spec's metrics ({})",
                    claim.id,
                    join(&names.scalars)
                );
            }
            for curve in kind.curves() {
                names.curve(&at, &what, curve)?;
            }
        }
        // a reading may set x values or other keys: checked as the claim is
        let kinds = std::iter::once(&claim.kind).chain(claim.readings.iter().map(|r| &r.kind));
        for kind in kinds {
            for b in kind.code_lengths() {
                runs(&at, "claim", b, bits, profile)?;
            }
            if let Some(why) = kind.refusal(spec_metrics, bits) {
                bail!("{at}: claim `{}`: {why} (profile `{profile}`)", claim.id);
            }
            if let Some(why) = claim
                .min_effect
                .as_ref()
                .and_then(|t| kind.tolerance_refusal("min_effect", t, spec_metrics))
            {
                bail!("{at}: claim `{}`: {why} (profile `{profile}`)", claim.id);
            }
        }
        Ok(())
    }
}

/// `b` is among the x values (code lengths, training sizes or p) the profile runs.
fn runs(at: &str, what: &str, b: usize, bits: &[usize], profile: &str) -> Result<()> {
    if !bits.contains(&b) {
        bail!(
            "{at}: {what} reads x = {b}, which profile `{profile}` does not run (its x values: {}); add {b} to the profile's bits (or training_sizes, or [normality] p, whichever its axis is)",
            join(bits.iter().map(|b| b.to_string()))
        );
    }
    Ok(())
}
