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
    Some(numbers_of(DeTable::parse(text).ok()?.get_ref()))
}

/// Every number of a parsed document, in file order.
pub(super) fn numbers_of(doc: &DeTable<'_>) -> Vec<Number> {
    let mut out = Vec::new();
    walk_table(doc, "", &mut out);
    out.sort_by_key(|n| n.span.start);
    out
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
pub(super) fn first_non_finite(numbers: &[Number]) -> Option<&Number> {
    numbers
        .iter()
        .find(|n| n.is_float && n.as_f64().is_some_and(|v| !v.is_finite()))
}

/// The number a serde refusal is about, when TOML places the error at a
/// table's header (a tagged table, `[[metrics]]`, is read as a whole, and an
/// array of them is placed at its first header) and its message quotes the
/// value (``invalid value: integer `-1` ``): the one number with that value
/// from `span` to the next header, else the one in the whole file.
pub(super) fn refused_number(
    text: &str,
    numbers: &[Number],
    span: Range<usize>,
    message: &str,
) -> Option<Number> {
    // serde's "integer `-1`" and "floating point `1e300`", or the range
    // types' "-1 is out of range"
    let quoted = ["integer `", "floating point `"]
        .iter()
        .find_map(|p| {
            message
                .split_once(p)
                .map(|(_, rest)| rest.split('`').next())
        })
        .unwrap_or_else(|| {
            // the number just before " is out of range" (after any prefix
            // such as "claim `x`: ")
            message
                .split_once(" is out of range")
                .and_then(|(v, _)| v.split_whitespace().last())
        })?;
    let value: f64 = quoted.trim().parse().ok()?;
    let end = text[span.end.min(text.len())..]
        .find("\n[")
        .map_or(text.len(), |k| span.end + k);
    let equal: Vec<&Number> = numbers
        .iter()
        .filter(|n| n.as_f64().is_some_and(|v| v == value))
        .collect();
    let only = |within: Range<usize>| -> Option<Number> {
        let mut inside = equal.iter().filter(|n| within.contains(&n.span.start));
        let found = inside.next()?;
        inside.next().is_none().then(|| (*found).clone())
    };
    only(span.start..end.max(span.end)).or_else(|| only(0..text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str, span: Range<usize>, message: &str) -> Option<Number> {
        refused_number(text, &numbers(text).unwrap(), span, message)
    }

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
        let all = numbers(text).unwrap();
        let bad = first_non_finite(&all).unwrap().clone();
        assert_eq!(
            (bad.key.as_str(), bad.as_f64()),
            ("profiles.ci.tolerance", Some(f64::NEG_INFINITY))
        );
        assert_eq!(&text[bad.span], "-inf");
        assert!(first_non_finite(&numbers("a = 1e300\nb = -0.0").unwrap()).is_none());
        assert!(
            first_non_finite(&numbers("a = nan").unwrap())
                .unwrap()
                .as_f64()
                .unwrap()
                .is_nan()
        );
    }

    #[test]
    fn the_refused_number_is_the_one_quoted_inside_the_span() {
        let text = "[[m]]\nk = 3\nradius = -1\n[[m]]\nradius = -1\n";
        // TOML's span: the first table's header
        let first = 0..5;
        let n = refused(text, first, "invalid value: integer `-1`, expected u32").unwrap();
        assert_eq!(
            (n.key.as_str(), n.span.start),
            ("m[0].radius", text.find("-1").unwrap())
        );
        // in a later table of the array (TOML places the error at the first)
        let later = "[[m]]\nk = 3\n[[m]]\nradius = -2\n";
        let n = refused(later, 0..5, "integer `-2`").unwrap();
        assert_eq!(n.key, "m[1].radius");
        // two candidates, or none quoted: no guess
        let both = "[[m]]\nradius = -1\nk = -1\n";
        assert!(refused(both, 0..5, "integer `-1`").is_none());
        assert!(refused(text, 0..5, "missing field").is_none());
        let big = "[[m]]\nk = 1e300\n";
        let quoted = format!("invalid type: floating point `{:.1}`", 1e300);
        let n = refused(big, 0..5, &quoted).unwrap();
        assert_eq!(n.key, "m[0].k");
        let inline = "t = { a = 1, w = { f = -3 } }\n";
        let n = refused(
            inline,
            4..29,
            "-3 is out of range: expected a finite number > 0",
        );
        assert_eq!(n.unwrap().key, "t.w.f");
    }
}
