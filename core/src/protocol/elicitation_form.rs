//! Builders for form elicitations ([`ElicitForm`]) and readers of their answers.
//!
//! ```
//! use mcpcore::protocol::elicitation::ElicitForm;
//! let form = ElicitForm::new("Your name?")
//!     .string("name", "Name", true)
//!     .choice("colour", "Favourite colour", ["red", "green"], false);
//! let json = serde_json::to_value(&form).unwrap();
//! assert_eq!(json["requestedSchema"]["required"], serde_json::json!(["name"]));
//! assert_eq!(json["requestedSchema"]["properties"]["colour"]["enum"], serde_json::json!(["red", "green"]));
//! ```

use super::elicitation::{
    BooleanSchema, ElicitAction, ElicitForm, ElicitRequestParams, ElicitResult, ElicitValue, NumberSchema,
    NumberType, PrimitiveSchemaDefinition, RequestedSchema, StringSchema, UntitledSingleSelectEnumSchema,
};

impl ElicitForm {
    /// A form showing `message` and asking for nothing yet; add fields with the methods below.
    pub fn new(message: impl Into<String>) -> Self {
        ElicitForm {
            mode: None,
            message: message.into(),
            requested_schema: RequestedSchema::default(),
            task: None,
            meta: None,
        }
    }

    /// Adds (or replaces) the field `name`, shown as `title`; `required` makes the client
    /// insist on an answer.
    pub fn field(mut self, name: &str, field: PrimitiveSchemaDefinition, required: bool) -> Self {
        let schema = &mut self.requested_schema;
        schema.properties.insert(name.to_owned(), field);
        let names = schema.required.get_or_insert_with(Vec::new);
        names.retain(|n| n != name);
        if required {
            names.push(name.to_owned());
        }
        if names.is_empty() {
            schema.required = None;
        }
        self
    }

    /// Adds a text field.
    pub fn string(self, name: &str, title: &str, required: bool) -> Self {
        let field = StringSchema { title: Some(title.to_owned()), ..Default::default() };
        self.field(name, PrimitiveSchemaDefinition::String(field), required)
    }

    /// Adds a number field.
    pub fn number(self, name: &str, title: &str, required: bool) -> Self {
        self.field(name, number(NumberType::Number, title), required)
    }

    /// Adds an integer field.
    pub fn integer(self, name: &str, title: &str, required: bool) -> Self {
        self.field(name, number(NumberType::Integer, title), required)
    }

    /// Adds a yes/no field.
    pub fn boolean(self, name: &str, title: &str, required: bool) -> Self {
        let field = BooleanSchema { title: Some(title.to_owned()), ..Default::default() };
        self.field(name, PrimitiveSchemaDefinition::Boolean(field), required)
    }

    /// Adds a field taking one of `options` (an `enum` of strings; every revision with
    /// elicitation understands it).
    pub fn choice<I, S>(self, name: &str, title: &str, options: I, required: bool) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let field = UntitledSingleSelectEnumSchema {
            title: Some(title.to_owned()),
            values: options.into_iter().map(Into::into).collect(),
            ..Default::default()
        };
        self.field(name, PrimitiveSchemaDefinition::UntitledSingleSelectEnum(field), required)
    }
}

fn number(kind: NumberType, title: &str) -> PrimitiveSchemaDefinition {
    PrimitiveSchemaDefinition::Number(NumberSchema {
        kind,
        title: Some(title.to_owned()),
        description: None,
        minimum: None,
        maximum: None,
        default: None,
    })
}

impl From<ElicitForm> for ElicitRequestParams {
    fn from(form: ElicitForm) -> Self {
        ElicitRequestParams::Form(form)
    }
}

impl ElicitResult {
    /// True when the user submitted the form (`accept`).
    pub fn accepted(&self) -> bool {
        self.action == ElicitAction::Accept
    }

    /// The submitted value of `field`.
    pub fn value(&self, field: &str) -> Option<&ElicitValue> {
        self.content.as_ref()?.get(field)
    }

    /// The submitted text of `field`.
    pub fn text(&self, field: &str) -> Option<&str> {
        match self.value(field)? {
            ElicitValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The submitted number of `field` (integers included).
    pub fn number(&self, field: &str) -> Option<f64> {
        match self.value(field)? {
            ElicitValue::Number(n) => Some(*n),
            ElicitValue::Integer(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// The submitted yes/no of `field`.
    pub fn boolean(&self, field: &str) -> Option<bool> {
        match self.value(field)? {
            ElicitValue::Boolean(b) => Some(*b),
            _ => None,
        }
    }
}
