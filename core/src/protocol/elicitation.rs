//! Elicitation: `elicitation/create` (a server→client request on 2025-06-18+ legacy revisions,
//! an MRTR input request on 2026-07-28), its restricted form schemas, and its result.

use super::common::Meta;
use super::tags::{ArrayType, BooleanType, ElicitMethod, FormMode, ObjectType, StringType, UrlMode};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// `elicitation/create` as an MRTR input request: `{method, params}` (`ElicitRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequest {
    /// Always `"elicitation/create"`.
    pub method: ElicitMethod,
    /// The params.
    pub params: ElicitRequestParams,
}

impl ElicitRequest {
    /// Wraps params.
    pub fn new(params: ElicitRequestParams) -> Self {
        ElicitRequest { method: ElicitMethod, params }
    }
}

/// Params of `elicitation/create`: a form, or (2025-11-25+) a URL to open.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// `mode` absent or `"form"`.
    Form(ElicitRequestFormParams),
    /// `mode: "url"`.
    Url(ElicitRequestURLParams),
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let params = if v.get("mode").and_then(Value::as_str) == Some(UrlMode::VALUE) {
            serde_json::from_value(v).map(ElicitRequestParams::Url)
        } else {
            serde_json::from_value(v).map(ElicitRequestParams::Form)
        };
        params.map_err(D::Error::custom)
    }
}

impl ElicitRequestParams {
    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Form(f) => &f.message,
            ElicitRequestParams::Url(u) => &u.message,
        }
    }
}

/// A form to elicit: [`ElicitRequestFormParams`], built with [`ElicitForm::new`] and its
/// field methods (`string`, `number`, `integer`, `boolean`, `choice`, `field`).
pub type ElicitForm = ElicitRequestFormParams;

/// Params of a form elicitation (`ElicitRequestFormParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `"form"`, or absent (form is the default mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What is being asked and why.
    pub message: String,
    /// The flat object schema of the answer.
    pub requested_schema: RequestedSchema,
    /// 2025-11-25 legacy tasks: task augmentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Value>,
    /// Request `_meta` (legacy JSON-RPC request only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of a URL elicitation (`ElicitRequestURLParams`, 2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestURLParams {
    /// Always `"url"`.
    pub mode: UrlMode,
    /// What is being asked and why.
    pub message: String,
    /// The URL the user should open.
    pub url: String,
    /// 2025-11-25 only: correlation id for `notifications/elicitation/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// 2025-11-25 legacy tasks: task augmentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Value>,
    /// Request `_meta` (legacy JSON-RPC request only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The `requestedSchema` of a form elicitation: an object of primitive properties.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestedSchema {
    /// `$schema` dialect URI.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: ObjectType,
    /// The fields (no nesting).
    pub properties: BTreeMap<String, PrimitiveSchemaDefinition>,
    /// Names of required fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

/// A field of a form (`PrimitiveSchemaDefinition`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// A string.
    String(StringSchema),
    /// A number or integer.
    Number(NumberSchema),
    /// A boolean.
    Boolean(BooleanSchema),
    /// One of several strings (`enum`).
    UntitledSingleSelectEnum(UntitledSingleSelectEnumSchema),
    /// One of several strings with display titles (`oneOf` of `{const, title}`).
    TitledSingleSelectEnum(TitledSingleSelectEnumSchema),
    /// Several of several strings (`items.enum`).
    UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema),
    /// Several of several strings with display titles (`items.anyOf`).
    TitledMultiSelectEnum(TitledMultiSelectEnumSchema),
    /// One of several strings with `enumNames` (deprecated; the only enum form before 2025-11-25).
    LegacyTitledEnum(LegacyTitledEnumSchema),
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use PrimitiveSchemaDefinition as P;
        let v = Value::deserialize(d)?;
        let has = |k: &str| v.get(k).is_some();
        let field = match v.get("type").and_then(Value::as_str) {
            Some("string") if has("oneOf") => serde_json::from_value(v).map(P::TitledSingleSelectEnum),
            Some("string") if has("enumNames") => serde_json::from_value(v).map(P::LegacyTitledEnum),
            Some("string") if has("enum") => serde_json::from_value(v).map(P::UntitledSingleSelectEnum),
            Some("string") => serde_json::from_value(v).map(P::String),
            Some("number" | "integer") => serde_json::from_value(v).map(P::Number),
            Some("boolean") => serde_json::from_value(v).map(P::Boolean),
            Some("array") if v.get("items").is_some_and(|i| i.get("anyOf").is_some()) => {
                serde_json::from_value(v).map(P::TitledMultiSelectEnum)
            }
            Some("array") => serde_json::from_value(v).map(P::UntitledMultiSelectEnum),
            Some(other) => {
                return Err(D::Error::custom(format!("unsupported elicitation field type {other:?}")))
            }
            None => return Err(D::Error::custom("an elicitation field needs a string `type`")),
        };
        field.map_err(D::Error::custom)
    }
}

/// A string field (`StringSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `format` of a [`StringSchema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    /// `"email"`.
    Email,
    /// `"uri"`.
    Uri,
    /// `"date"`.
    Date,
    /// `"date-time"`.
    DateTime,
}

/// A number field (`NumberSchema`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "super::number::opt_f64")]
    pub minimum: Option<f64>,
    /// Maximum.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "super::number::opt_f64")]
    pub maximum: Option<f64>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "super::number::opt_f64")]
    pub default: Option<f64>,
}

/// The `type` of a [`NumberSchema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// `"number"`.
    Number,
    /// `"integer"`.
    Integer,
}

/// A boolean field (`BooleanSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A single-select enum without titles (`UntitledSingleSelectEnumSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A single-select enum with display titles (`TitledSingleSelectEnumSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    pub one_of: Vec<TitledEnumOption>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// An option of a titled enum: `{const, title}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TitledEnumOption {
    /// The value.
    #[serde(rename = "const")]
    pub value: String,
    /// Its display title.
    pub title: String,
}

/// A multi-select enum without titles (`UntitledMultiSelectEnumSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// The `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// A multi-select enum with display titles (`TitledMultiSelectEnumSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledEnumItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// The `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The options.
    pub any_of: Vec<TitledEnumOption>,
}

/// A single-select enum with parallel `enumNames` (`LegacyTitledEnumSchema`; deprecated).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display names, parallel to `enum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The answer to an elicitation (`ElicitResult`; no `resultType`, also on 2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (`accept` of a form only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
    /// `_meta` (legacy: `ElicitResult` extends `Result`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitResult {
    /// An answer with `action` and no content.
    pub fn new(action: ElicitAction) -> Self {
        ElicitResult { action, content: None, meta: None }
    }
}

/// The user's action on an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted or confirmed.
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// A submitted form value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A boolean.
    Boolean(bool),
    /// An integer.
    Integer(i64),
    /// A non-integer (or out-of-range) number.
    Number(f64),
    /// A string.
    String(String),
    /// The selections of a multi-select enum (2025-11-25+).
    StringArray(Vec<String>),
}

/// Params of legacy `notifications/elicitation/complete` (2025-11-25 only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the finished URL elicitation.
    pub elicitation_id: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
