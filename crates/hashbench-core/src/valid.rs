//! Numbers that cannot hold a bad value. Spec keys deserialize into these
//! types, so a parameter cannot forget its range check, and a refusal says
//! the allowed range where the value is read: the TOML reader adds the file's
//! line and the key.

use serde::{Deserialize, Deserializer, Serialize};

/// A number outside the range its key takes.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("{value:?} is out of range: expected {range}")]
pub struct RangeError {
    /// The value read.
    pub value: f64,
    /// The allowed range, in words.
    pub range: &'static str,
}

/// Defines a `f64` newtype whose every value satisfies `$ok`, refused with
/// "`$range`" otherwise.
macro_rules! checked_real {
    ($(#[$doc:meta])* $name:ident, $range:literal, |$x:ident| $ok:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, PartialOrd, Serialize)]
        #[serde(transparent)]
        pub struct $name(f64);

        // the bare number, as the plain f64 it replaced printed: fingerprints
        // of data, fits and tuning records built from `{:?}` stay the same
        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.0, f)
            }
        }

        impl $name {
            /// The allowed range, as messages say it.
            pub const RANGE: &'static str = $range;

            /// `value` when it is in range.
            ///
            /// # Errors
            /// [`RangeError`], giving the value and the allowed range.
            pub fn new(value: f64) -> Result<Self, RangeError> {
                let $x = value;
                if $ok {
                    Ok(Self(value))
                } else {
                    Err(RangeError {
                        value,
                        range: Self::RANGE,
                    })
                }
            }

            /// The number.
            pub fn get(self) -> f64 {
                self.0
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Self::new(f64::deserialize(d)?).map_err(serde::de::Error::custom)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

checked_real!(
    /// A finite number > 0: a width, a scale factor, a rate.
    Positive,
    "a finite number > 0",
    |x| x.is_finite() && x > 0.0
);

checked_real!(
    /// A golden check's tolerance, in [0, 1e-4]: round-off between machines
    /// and thread counts, far below what a changed seed moves a metric by, so
    /// a check that passes means the same numbers.
    GoldenTolerance,
    "a number in [0, 1e-4] (round-off, not noise)",
    |x| (0.0..=1e-4).contains(&x)
);

checked_real!(
    /// A finite number ≥ 0: a weight that may vanish, a claim's margin.
    NonNegative,
    "a finite number >= 0",
    |x| x.is_finite() && x >= 0.0
);

checked_real!(
    /// A finite number other than 0: a factor that must not collapse every
    /// value into one.
    NonZero,
    "a finite number other than 0",
    |x| x.is_finite() && x != 0.0
);

checked_real!(
    /// A fraction in [0, 1): a relative cut that must leave something.
    Fraction,
    "a number in [0, 1)",
    |x| (0.0..1.0).contains(&x)
);

checked_real!(
    /// Any finite number: an offset.
    Finite,
    "a finite number",
    |x| x.is_finite()
);

/// Reads a plain `f64` field through [`Positive`] (`#[serde(deserialize_with
/// = "hashbench_core::valid::positive")]`), for a key whose type stays `f64`.
///
/// # Errors
/// [`RangeError`]'s message for a value that is not finite and > 0.
pub fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Positive::deserialize(d).map(Positive::get)
}

/// Reads a hyperparameter setting written either as a rule's name (a
/// string, into `R`) or as the values themselves (a table, into `F`), with
/// the error of the form written: serde's untagged enums say only "data did
/// not match any variant", never which value of the table is wrong.
///
/// # Errors
/// `R`'s error for a string, `F`'s for a table, a type error otherwise.
pub fn rule_or_values<'de, D, R, F, T>(
    d: D,
    rule: fn(R) -> T,
    values: fn(F) -> T,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    R: Deserialize<'de>,
    F: Deserialize<'de>,
{
    use serde::de::value::{MapAccessDeserializer, StrDeserializer};
    struct Visit<R, F, T>(fn(R) -> T, fn(F) -> T);
    impl<'de, R: Deserialize<'de>, F: Deserialize<'de>, T> serde::de::Visitor<'de> for Visit<R, F, T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a rule's name or a table of values")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
            R::deserialize(StrDeserializer::<E>::new(v)).map(self.0)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            F::deserialize(MapAccessDeserializer::new(map)).map(self.1)
        }
    }
    d.deserialize_any(Visit(rule, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Keys {
        width: Positive,
        tolerance: NonNegative,
    }

    fn read(text: &str) -> Result<Keys, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn each_bad_value_is_refused_with_its_line_key_and_range() {
        let k = read("width = 2\ntolerance = 0.0").unwrap();
        assert_eq!((k.width.get(), k.tolerance.get()), (2.0, 0.0));
        for (bad, range) in [
            ("width = 0", "> 0"),
            ("width = -1.5", "> 0"),
            ("width = nan", "> 0"),
            ("width = inf", "> 0"),
        ] {
            let e = read(&format!("{bad}\ntolerance = 1e-6")).unwrap_err();
            assert!(
                e.contains("line 1") && e.contains("width") && e.contains(range),
                "{e}"
            );
        }
        for bad in ["-1e-9", "nan", "-inf"] {
            let e = read(&format!("width = 1\ntolerance = {bad}")).unwrap_err();
            assert!(
                e.contains("line 2") && e.contains("tolerance") && e.contains(">= 0"),
                "{e}"
            );
        }
    }

    #[test]
    fn the_constructors_agree_with_the_ranges() {
        assert!(NonZero::new(-2.0).is_ok() && NonZero::new(0.0).is_err());
        assert!(Finite::new(-1e300).is_ok() && Finite::new(f64::NEG_INFINITY).is_err());
        assert!(Positive::new(f64::MIN_POSITIVE).is_ok());
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Rule {
        Validate,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Values {
        rho: usize,
    }

    #[derive(Debug, PartialEq)]
    enum Setting {
        Rule(Rule),
        Values(Values),
    }

    #[derive(Debug, Deserialize)]
    struct Holder {
        #[serde(deserialize_with = "setting")]
        h: Setting,
    }

    fn setting<'de, D: Deserializer<'de>>(d: D) -> Result<Setting, D::Error> {
        rule_or_values(d, Setting::Rule, Setting::Values)
    }

    #[test]
    fn a_rule_or_values_error_is_the_form_it_was_written_in() {
        let read = |t: &str| {
            toml::from_str::<Holder>(t)
                .map(|h| h.h)
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            read("h = \"validate\"").unwrap(),
            Setting::Rule(Rule::Validate)
        );
        assert_eq!(
            read("h = { rho = 2 }").unwrap(),
            Setting::Values(Values { rho: 2 })
        );
        let e = read("h = { rho = -1 }").unwrap_err();
        assert!(
            e.contains("-1") && e.contains("usize") && !e.contains("variant of untagged"),
            "{e}"
        );
        let e = read("h = \"valid\"").unwrap_err();
        assert!(e.contains("unknown variant `valid`"), "{e}");
    }

    #[test]
    fn debug_prints_the_bare_number_fingerprints_are_built_from() {
        let v = NonZero::new(0.5).unwrap();
        assert_eq!(format!("{v:?}"), format!("{:?}", 0.5f64));
        assert_eq!(format!("{:?}", Positive::new(2.0).unwrap()), "2.0");
    }
}
