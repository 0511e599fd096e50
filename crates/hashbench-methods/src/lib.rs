#![doc = include_str!("../README.md")]

use hashbench_core::registry::{Catalog, Registration};

/// Every method a spec can name, one line each: its params type, whose
/// `HashMethod` impl in the method's own crate declares everything else (its
/// spec name, label, requirements, fit log, version and conformance
/// fixture). Validation, the data and label checks, default labels, figure
/// colours and the conformance suite all read this one table.
pub static CATALOG: Catalog = Catalog {
    methods: &[
        // random-hyperplane LSH
        Registration::of::<hashbench_lsh::LshParams>(),
        // Spectral Hashing
        Registration::of::<hashbench_spectral::SpectralParams>(),
        // shift-invariant kernel hashing
        Registration::of::<hashbench_sikh::SikhParams>(),
        // Kernelized LSH
        Registration::of::<hashbench_klsh::KlshParams>(),
        // boosted similarity sensitive coding
        Registration::of::<hashbench_bssc::BsscParams>(),
        // PCA hashing (semi-supervised when the split has labelled items)
        Registration::of::<hashbench_pcah::PcahParams>(),
        // semi-supervised sequential projection learning
        Registration::of::<hashbench_splh::S3plhParams>(),
        // unsupervised sequential projection learning
        Registration::of::<hashbench_splh::UsplhParams>(),
        // Optimized Kernel Hashing
        Registration::of::<hashbench_okh::OkhParams>(),
        // max-margin kernel hashing by CCCP and cutting planes
        Registration::of::<hashbench_lamp::LampParams>(),
        // stacked RBMs fine-tuned with NCA
        Registration::of::<hashbench_rbm::RbmParams>(),
        // iterative quantization (not in the five papers)
        Registration::of::<hashbench_itq::ItqParams>(),
        // Sparse Hashing with ENCW hash functions
        Registration::of::<hashbench_spah::ShEncwParams>(),
        // Sparse Hashing with linear-SVM hash functions
        Registration::of::<hashbench_spah::ShSvmParams>(),
        // self-taught hashing (Laplacian eigenmap codes, one SVM per bit)
        Registration::of::<hashbench_sth::SthParams>(),
        // latent semantic indexing (truncated SVD, median thresholds)
        Registration::of::<hashbench_lsi::LsiParams>(),
        // Laplacian co-hashing (bipartite item-feature co-embedding)
        Registration::of::<hashbench_lch::LchParams>(),
        // minimal loss hashing
        Registration::of::<hashbench_mlh::MlhParams>(),
    ],
    // a new method gets its own entry here (the palette has room for 20),
    // else its label's hash picks one of the spare colours no listed method has
    colours: &[
        "lsh", "spectral", "sikh", "klsh", "bssc", "pcah", "s3plh", "usplh", "okh", "lamp", "rbm",
        "itq", "sh-encw", "sh-svm", "sth", "lsi", "lch", "mlh",
    ],
    // KLSH Fig. 7: how Gaussian its hyperplanes are (the normality study)
    hyperplanes: &[("klsh", hashbench_klsh::hyperplane_weights)],
};

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::HashMethod;
    use hashbench_core::registry::MethodSpec;

    #[test]
    fn names_and_labels_are_unique_and_spec_names_are_kebab_case() {
        let all = CATALOG.methods;
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.label, b.label);
            }
            assert!(
                !a.name.is_empty()
                    && a.name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "spec name `{}`: lower-case letters, digits and '-'",
                a.name
            );
        }
    }

    #[test]
    fn tuning_records_are_kept_only_from_an_earlier_or_the_same_version() {
        for r in CATALOG.methods {
            assert!(
                r.tuned_since <= r.version,
                "{}: TUNED_SINCE {} is after its VERSION {}",
                r.name,
                r.tuned_since,
                r.version
            );
        }
    }

    #[test]
    fn every_listed_colour_names_a_method_once_and_fits_the_palette() {
        let colours = CATALOG.colours;
        assert!(colours.len() <= hashbench_plot::LISTED_SLOTS);
        for (i, name) in colours.iter().enumerate() {
            assert!(!colours[i + 1..].contains(name), "`{name}` listed twice");
            assert!(CATALOG.get(name).is_some(), "`{name}` is not registered");
            assert_eq!(CATALOG.palette_slot(name), Some(i));
        }
        // a method the list does not name has no slot of its own (its label's
        // hash picks one in the plot), whatever its place in the catalog
        assert_eq!(CATALOG.palette_slot("new-method"), None);
    }

    /// The configuration a spec's TOML table reads as, through the
    /// registration of the method it names.
    fn read(text: &str) -> Result<MethodSpec, String> {
        let table: toml::Table = toml::from_str(text).unwrap();
        let name = table["method"].as_str().unwrap();
        let json = serde_json::to_value(&table).unwrap();
        CATALOG.get(name).unwrap().read(json)
    }

    #[test]
    fn a_table_is_read_by_its_own_method_and_its_refusals_name_the_key() {
        let lsh = CATALOG.get("lsh").unwrap();
        assert_eq!(lsh.name, <hashbench_lsh::LshParams as HashMethod>::NAME);
        let field = read("method = \"lsh\"\nbits_per_table = 2").unwrap_err();
        assert!(field.contains("unknown field `bits_per_table`"), "{field}");
        let nested = read("method = \"mlh\"\nhyperparameters = { rho = \"x\" }").unwrap_err();
        assert!(nested.starts_with("`hyperparameters.rho`: "), "{nested}");
        // a registration reads only its own method's tables
        let other = lsh.read(serde_json::json!({ "method": "pcah" }));
        assert!(other.unwrap_err().contains("is not lsh"));
        let untagged = lsh.read(serde_json::json!({}));
        assert!(untagged.unwrap_err().contains("missing field `method`"));
        // written back, the name under `method` leads the parameters
        assert!(
            read("method = \"lsh\"")
                .unwrap()
                .to_json()
                .starts_with("{\"method\":\"lsh\"")
        );
    }

    /// A configuration's canonical JSON as a spec's TOML table (a `null`,
    /// an unset option, is a key left out).
    fn spec_text(m: &MethodSpec) -> String {
        fn drop_nulls(v: serde_json::Value) -> serde_json::Value {
            match v {
                serde_json::Value::Object(o) => o
                    .into_iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k, drop_nulls(v)))
                    .collect(),
                serde_json::Value::Array(a) => a.into_iter().map(drop_nulls).collect(),
                v => v,
            }
        }
        let json: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap();
        toml::to_string(&drop_nulls(json)).unwrap()
    }

    #[test]
    fn every_method_round_trips_through_its_spec_text() {
        // what run.json and the fingerprints state is what a stored record
        // reads back; a spec reads it less what the plan serves
        for (m, r) in CATALOG.fixtures().into_iter().zip(CATALOG.methods) {
            assert_eq!(m.registration().name, r.name);
            let text = spec_text(&m);
            let table: toml::Table = toml::from_str(&text).unwrap();
            if table.keys().any(|k| r.served.contains(&k.as_str())) {
                let refused = read(&text).unwrap_err();
                assert!(refused.contains("the experiment's"), "{refused}");
            }
            let json = serde_json::to_value(&table).unwrap();
            let back = r
                .read_stored(json)
                .unwrap_or_else(|e| panic!("{} does not read back: {e}\n{text}", r.name));
            assert_eq!(back, m, "{} changes through its spec text:\n{text}", r.name);
        }
    }
}
