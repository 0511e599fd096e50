//! Every number a spec file writes, with its key and place: the one check
//! that holds for every key, present and future (no key takes NaN or an
//! infinity), and the list the spec's property test mutates.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A number as written: its dotted key (`profiles.ci.tolerance`,
/// `methods[2].hyperparameters.alpha`), its byte span and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    /// Dotted key, arrays indexed.
    pub key: String,
    /// Byte range of the value in the file.
    pub span: Range<usize>,
    /// The value as written.
    pub text: String,
    /// Whether TOML reads it as a float (else an integer).
    pub is_float: bool,
}

impl Number {
    /// The value, for a float.
    pub fn as_f64(&self) -> Option<f64> {
        let plain = self.text.replace('_', "");
        match plain.trim_start_matches(['+', '-']) {
            "nan" => Some(f64::NAN),
            "inf" if plain.starts_with('-') => Some(f64::NEG_INFINITY),
            "inf" => Some(f64::INFINITY),
            _ => plain.parse().ok(),
        }
    }
}

/// Every number of the TOML document `text`, in file order; `None` when it
/// does not parse (the serde reader then says why).
pub fn numbers(text: &str) -> Option<Vec<Number>> {
    let table = DeTable::parse(text).ok()?;
    let mut out = Vec::new();
    walk_table(table.get_ref(), "", &mut out);
    out.sort_by_key(|n| n.span.start);
    Some(out)
}

fn walk_table(table: &DeTable<'_>, prefix: &str, out: &mut Vec<Number>) {
    for (k, v) in table.iter() {
        let key = if prefix.is_empty() {
            k.get_ref().to_string()
        } else {
            format!("{prefix}.{}", k.get_ref())
        };
        walk_value(v, &key, out);
    }
}

fn walk_value(v: &Spanned<DeValue<'_>>, key: &str, out: &mut Vec<Number>) {
    let (text, is_float) = match v.get_ref() {
        DeValue::Integer(i) => (i.as_str().to_string(), false),
        DeValue::Float(f) => (f.as_str().to_string(), true),
        DeValue::Table(t) => return walk_table(t, key, out),
        DeValue::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                walk_value(item, &format!("{key}[{i}]"), out);
            }
            return;
        }
        _ => return,
    };
    out.push(Number {
        key: key.to_string(),
        span: v.span(),
        text,
        is_float,
    });
}

/// The first number of `text` that is NaN or infinite: no spec key takes
/// one, and serde's own messages for them ("invalid type: null", an enum
/// that did not match) do not say so.
pub(super) fn first_non_finite(text: &str) -> Option<Number> {
    numbers(text)?
        .into_iter()
        .find(|n| n.is_float && n.as_f64().is_some_and(|v| !v.is_finite()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_is_found_with_its_key_and_text() {
        let text = "seed = 1\n[[methods]]\nalpha = 0.5\nbits = [8, 1_6]\n[profiles.ci]\ntolerance = -inf\n";
        let found: Vec<(String, String)> = numbers(text)
            .unwrap()
            .into_iter()
            .map(|n| (n.key, n.text))
            .collect();
        let want = [
            ("seed", "1"),
            ("methods[0].alpha", "0.5"),
            ("methods[0].bits[0]", "8"),
            ("methods[0].bits[1]", "16"),
            ("profiles.ci.tolerance", "-inf"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(found, want);
        let bad = first_non_finite(text).unwrap();
        assert_eq!(
            (bad.key.as_str(), bad.as_f64()),
            ("profiles.ci.tolerance", Some(f64::NEG_INFINITY))
        );
        assert_eq!(&text[bad.span], "-inf");
        assert!(first_non_finite("a = 1e300\nb = -0.0").is_none());
        assert!(
            first_non_finite("a = nan")
                .unwrap()
                .as_f64()
                .unwrap()
                .is_nan()
        );
    }
}
