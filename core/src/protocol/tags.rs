//! Zero-sized types for the schema's `const` strings (`"type": "string"`, `"mode": "url"`,
//! `"method": "roots/list"`…). Each serializes as its one string and refuses any other, so a
//! struct holding one can derive serde and still round-trip exactly.

use serde::de::{Error as _, Unexpected};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! const_tag {
    ($($(#[$doc:meta])* $name:ident = $value:literal;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The wire string.
            pub const VALUE: &'static str = $value;
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($value)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                if s == $value {
                    Ok($name)
                } else {
                    Err(D::Error::invalid_value(Unexpected::Str(&s), &concat!("\"", $value, "\"")))
                }
            }
        }
    )*};
}

const_tag! {
    /// `"string"` (a JSON Schema `type`).
    StringType = "string";
    /// `"boolean"` (a JSON Schema `type`).
    BooleanType = "boolean";
    /// `"array"` (a JSON Schema `type`).
    ArrayType = "array";
    /// `"object"` (a JSON Schema `type`).
    ObjectType = "object";
    /// `"form"` (an elicitation `mode`).
    FormMode = "form";
    /// `"url"` (an elicitation `mode`).
    UrlMode = "url";
    /// `"sampling/createMessage"` (a `method`).
    CreateMessageMethod = "sampling/createMessage";
    /// `"elicitation/create"` (a `method`).
    ElicitMethod = "elicitation/create";
    /// `"roots/list"` (a `method`).
    ListRootsMethod = "roots/list";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_accept_only_their_string() {
        assert_eq!(serde_json::to_string(&UrlMode).unwrap(), "\"url\"");
        assert_eq!(serde_json::from_str::<UrlMode>("\"url\"").unwrap(), UrlMode);
        assert!(serde_json::from_str::<UrlMode>("\"form\"").is_err());
    }
}
