//! Serde helpers for schema `number` fields held as `f64`.
//!
//! JSON does not distinguish `50` from `50.0`, but `serde_json::Value` does, and peers (and the
//! official examples) write integral numbers without a fraction. These helpers write an integral
//! `f64` as a JSON integer so a value read as `50` is written back as `50`.

use serde::Serializer;

/// The largest integer an `f64` represents exactly (2^53).
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// Serializes an `f64`, as an integer when it is integral and exactly representable.
pub(crate) fn f64<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    let v = *v;
    if v.is_finite() && v.fract() == 0.0 && v.abs() <= MAX_EXACT {
        if v >= 0.0 {
            s.serialize_u64(v as u64)
        } else {
            s.serialize_i64(v as i64)
        }
    } else {
        s.serialize_f64(v)
    }
}

/// [`f64`] for an optional field (use with `skip_serializing_if = "Option::is_none"`).
pub(crate) fn opt_f64<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => f64(v, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::json;

    #[derive(Serialize)]
    struct N(#[serde(serialize_with = "super::f64")] f64);

    #[test]
    fn integral_values_are_integers() {
        assert_eq!(serde_json::to_value(N(50.0)).unwrap(), json!(50));
        assert_eq!(serde_json::to_value(N(-3.0)).unwrap(), json!(-3));
        assert_eq!(serde_json::to_value(N(0.5)).unwrap(), json!(0.5));
        assert_eq!(serde_json::to_value(N(1e300)).unwrap(), json!(1e300));
    }
}
