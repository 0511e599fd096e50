//! Expansion of `[[methods]]` tables into method configurations.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, anyhow, bail};

use super::{MethodEntry, Spec};
use hashbench_core::registry::{Catalog, MethodSpec};
use hashbench_core::target::Target;
use hashbench_data::TruthRule;
use hashbench_eval::MetricSpec;
use hashbench_kernel::KernelSpec;

/// What an experiment serves its methods: its truth, metrics and the
/// metric its searches serve (`tuned_for`).
pub(super) struct Served<'a> {
    pub truth: &'a TruthRule,
    pub metrics: &'a [MetricSpec],
    pub tuned_for: Option<&'a str>,
}

impl Spec {
    /// Expands `[[methods]]` tables: `label` names a configuration and `grid`
    /// lists values per parameter, expanded as a cartesian product.
    /// Each is read by the `catalog`'s registration of the method it names.
    /// `kernel` is the profile's experiment kernel, given to methods that
    /// read it and name none; `overrides` (the profile's, by label) replace
    /// parameters of the tables whose label (stated or default) they name;
    /// each configuration serves the experiment (`served`: its truth and the
    /// metric its search serves, the table's `tuned_for` or the spec's).
    pub(super) fn methods(
        &self,
        catalog: &'static Catalog,
        kernel: Option<&KernelSpec>,
        overrides: &BTreeMap<String, toml::Table>,
        served: &Served<'_>,
    ) -> Result<Vec<MethodEntry>> {
        let mut out: Vec<MethodEntry> = Vec::new();
        let mut used = BTreeSet::new();
        for (k, (at, table)) in self.method_tables().into_iter().enumerate() {
            let mut base = table.clone();
            let label = match base.remove("label") {
                Some(toml::Value::String(s)) => Some(s),
                Some(other) => bail!("{at}: methods[{k}].label must be a string, got {other}"),
                None => None,
            };
            let in_paper = match base.remove("in_paper") {
                Some(toml::Value::Boolean(b)) => b,
                Some(other) => {
                    bail!("{at}: methods[{k}].in_paper must be true or false, got {other}")
                }
                None => true,
            };
            let own_tuned_for = match base.remove("tuned_for") {
                Some(toml::Value::String(s)) => Some(s),
                Some(other) => {
                    bail!("{at}: methods[{k}].tuned_for must be a metric name, got {other}")
                }
                None => None,
            };
            if own_tuned_for.is_some()
                && let Some(reg) = base.get("method").and_then(|m| catalog.get(m.as_str()?))
                && reg.served.is_empty()
            {
                bail!(
                    "{at}: methods[{k}]: `tuned_for` names the metric a search serves, and the experiment serves {} nothing",
                    reg.label
                );
            }
            let tuned_for = own_tuned_for.or_else(|| served.tuned_for.map(str::to_string));
            let target = super::serving::target(served.truth, served.metrics, tuned_for.as_deref())
                .map_err(|e| anyhow!("{at}: methods[{k}]: {e}"))?;
            let table_label = label.clone().or_else(|| match base.get("method") {
                Some(toml::Value::String(n)) => catalog.get(n).map(|r| r.label.to_string()),
                _ => None,
            });
            // by the table's label, else by its method's name (every entry of that method)
            let method_name = base
                .get("method")
                .and_then(|m| m.as_str())
                .map(str::to_string);
            let by_label = table_label.and_then(|l| overrides.get_key_value(&l));
            if let Some((name, params)) =
                by_label.or_else(|| method_name.and_then(|n| overrides.get_key_value(&n)))
            {
                used.insert(name.clone());
                for (key, value) in params {
                    if key == "method" || key == "label" || key == "tuned_for" {
                        bail!("{at}: profile method_params.\"{name}\" may not change `{key}`");
                    }
                    base.insert(key.clone(), value.clone());
                }
            }
            for (t, tags) in expand_grid(&at, k, base)? {
                let (stated, spec, scored) = configuration(catalog, &at, k, t, (kernel, &target))?;
                let base_label = label
                    .clone()
                    .unwrap_or_else(|| spec.default_label().to_string());
                let label = if tags.is_empty() {
                    base_label
                } else {
                    format!("{base_label} ({})", tags.join(", "))
                };
                if out.iter().any(|m| m.label == label) {
                    bail!(
                        "{at}: methods[{k}]: label `{label}` is used twice; give each configuration its own `label`"
                    );
                }
                out.push(MethodEntry {
                    label,
                    tuned_for: scored.then(|| tuned_for.clone()).flatten(),
                    params: spec.to_json(),
                    palette_slot: catalog.palette_slot(spec.registration().name),
                    spec,
                    stated,
                    in_paper,
                });
            }
        }
        if out.is_empty() {
            bail!("{}: no [[methods]]", self.path.display());
        }
        if let Some(unused) = overrides.keys().find(|l| !used.contains(*l)) {
            bail!(
                "{}: the profile's method_params.\"{unused}\" sets no entry: it is no label or method of the spec, or every entry of that method has its own label's",
                self.path.display()
            );
        }
        Ok(out)
    }
}

/// The cartesian product of a table's `grid` lists over its other
/// parameters, each configuration with its `key=value` tags.
fn expand_grid(
    at: &str,
    k: usize,
    mut base: toml::Table,
) -> Result<Vec<(toml::Table, Vec<String>)>> {
    let grid = match base.remove("grid") {
        Some(toml::Value::Table(t)) => t,
        Some(other) => {
            bail!("{at}: methods[{k}].grid must be a table of lists, got {other}")
        }
        None => toml::Table::new(),
    };
    let mut combos: Vec<(toml::Table, Vec<String>)> = vec![(base, vec![])];
    for (key, values) in &grid {
        let toml::Value::Array(values) = values else {
            bail!("{at}: methods[{k}].grid.{key} must be a list of values");
        };
        combos = combos
            .into_iter()
            .flat_map(|(t, tags)| {
                values.iter().map(move |v| {
                    let mut t = t.clone();
                    t.insert(key.clone(), v.clone());
                    let mut tags = tags.clone();
                    tags.push(format!("{key}={v}"));
                    (t, tags)
                })
            })
            .collect();
    }
    Ok(combos)
}

/// One configuration as the method reads it: the spec's kernel filled in
/// where the method reads it and names none, parsed, serving the
/// experiment's `target` and validated; with the parameters as the spec
/// states them (what trial seeds derive from), which include what serving
/// set apart from the method's unserved defaults (as the spec wrote those
/// before the plan served them, so every seed is the one it was); and
/// whether its hyperparameter search is scored by the target's metric.
fn configuration(
    catalog: &'static Catalog,
    at: &str,
    k: usize,
    mut t: toml::Table,
    (kernel, target): (Option<&KernelSpec>, &Target),
) -> Result<(String, MethodSpec, bool)> {
    let name = match t.get("method") {
        Some(toml::Value::String(name)) => name.clone(),
        _ => bail!(
            "{at}: methods[{k}] needs `method = \"...\"` (one of {})",
            catalog.names()
        ),
    };
    let reg = catalog.get(&name).ok_or_else(|| {
        anyhow!(
            "{at}: methods[{k}]: unknown method `{name}` (one of {})",
            catalog.names()
        )
    })?;
    if reg.requirements.uses_spec_kernel && !t.contains_key("kernel") {
        let kernel = kernel.ok_or_else(|| {
            anyhow!("{at}: methods[{k}]: {name} needs a `kernel`, here or at the top of the spec")
        })?;
        t.insert(
            "kernel".into(),
            toml::Value::try_from(kernel).context("kernel as TOML")?,
        );
    }
    let table = serde_json::to_value(&t).context("method parameters as JSON")?;
    let read: MethodSpec = reg.read(table).map_err(|e| {
        // the method's own fields are listed; the keys every
        // method takes are read before it
        let common = if e.contains("unknown field") {
            "; every method also takes `label`, `in_paper` and `tuned_for`"
        } else {
            ""
        };
        anyhow!("{at}: methods[{k}]: {}{common}", e.trim_end())
    })?;
    let spec = read
        .serving(target)
        .map_err(|e| anyhow!("{at}: methods[{k}] ({}): {e}", read.default_label()))?;
    for (key, value) in served_keys(&read, &spec) {
        t.insert(
            key,
            toml::Value::try_from(value).context("a served parameter as TOML")?,
        );
    }
    let stated = serde_json::to_string(&t).context("serialising method parameters")?;
    spec.validate()
        .map_err(|e| anyhow!("{at}: methods[{k}] ({}): {e}", spec.default_label()))?;
    // a search reads the metric when serving without it is refused or
    // serves another configuration
    let unscored = Target {
        scoring: None,
        ..*target
    };
    let scored = spec.needs_tuning() && read.serving(&unscored).ok().as_ref() != Some(&spec);
    Ok((stated, spec, scored))
}

/// The parameters serving set to other values than `read`'s (its unserved
/// defaults), by their stored names.
fn served_keys(read: &MethodSpec, served: &MethodSpec) -> Vec<(String, serde_json::Value)> {
    let object = |spec: &MethodSpec| match serde_json::from_str(&spec.to_json()) {
        Ok(serde_json::Value::Object(o)) => o,
        _ => serde_json::Map::new(),
    };
    let before = object(read);
    object(served)
        .into_iter()
        .filter(|(key, value)| before.get(key) != Some(value))
        .collect()
}
