//! Python values ↔ JSON, in Rust: what a handler receives is built as Python objects directly,
//! and what it returns becomes a core [`HostValue`] without `json.dumps`. Python's own types
//! (dataclasses, pydantic models, enums, dates, content objects…) are turned into plain values by
//! `mcpcore._convert.to_builtin`, one level at a time.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use mcpcore::host::HostValue;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTuple,
};
use serde_json::{Map, Number, Value};
use std::time::Duration;

/// How deep a returned value may nest.
const MAX_DEPTH: usize = 256;

static TO_BUILTIN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `value` as Python objects (dicts, lists, str, int, float, bool, None).
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

fn bytes_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u8>>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Some(b.to_vec()));
    }
    if obj.is_instance_of::<PyMemoryView>() {
        let b = obj.py().import("builtins")?.getattr("bytes")?.call1((obj,))?;
        return Ok(Some(b.cast::<PyBytes>()?.as_bytes().to_vec()));
    }
    Ok(None)
}

/// What a handler returned, as a core host value: bytes (and lists holding bytes) stay bytes.
pub(crate) fn host_value(obj: &Bound<'_, PyAny>) -> PyResult<HostValue> {
    if let Some(b) = bytes_of(obj)? {
        return Ok(HostValue::Bytes(b));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        let mut has_bytes = false;
        for i in &items {
            has_bytes |= bytes_of(i)?.is_some();
        }
        if has_bytes {
            return items.iter().map(host_value).collect::<PyResult<_>>().map(HostValue::List);
        }
    }
    json_value(obj).map(HostValue::Json)
}

/// `obj` as JSON: builtins directly, bytes as base64 text, other types through `to_builtin`.
pub(crate) fn json_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    json_at(obj, 0)
}

fn number(n: f64) -> PyResult<Value> {
    Number::from_f64(n)
        .map(Value::Number)
        .ok_or_else(|| PyValueError::new_err(format!("{n} is not a JSON number")))
}

fn json_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!("the value nests deeper than {MAX_DEPTH} levels")));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if obj.is_exact_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return number(obj.extract::<f64>()?);
    }
    if obj.is_exact_instance_of::<PyFloat>() {
        return number(obj.extract::<f64>()?);
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            map.insert(key(&k)?, json_at(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items: PyResult<Vec<Value>> = obj.try_iter()?.map(|i| json_at(&i?, depth + 1)).collect();
        return items.map(Value::Array);
    }
    if let Some(b) = bytes_of(obj)? {
        return Ok(Value::String(STANDARD.encode(b)));
    }
    let py = obj.py();
    let convert = TO_BUILTIN
        .get_or_try_init(py, || py.import("mcpcore._convert")?.getattr("to_builtin").map(Bound::unbind))?;
    let plain = convert.bind(py).call1((obj,))?;
    if plain.get_type().is(obj.get_type()) {
        return Err(PyTypeError::new_err(format!(
            "cannot convert a value of type {} to JSON",
            obj.get_type().qualname()?
        )));
    }
    json_at(&plain, depth + 1)
}

/// A dict key as JSON object key text.
fn key(k: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = k.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if let Ok(b) = k.cast::<PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.to_owned());
    }
    if k.is_instance_of::<PyInt>() || k.is_instance_of::<PyFloat>() {
        return Ok(k.str()?.to_cow()?.into_owned());
    }
    match json_value(k)? {
        Value::String(s) => Ok(s),
        _ => Err(PyTypeError::new_err(format!(
            "cannot use a key of type {} in a JSON object",
            k.get_type().qualname()?
        ))),
    }
}

/// Seconds → a positive duration.
pub(crate) fn seconds(timeout: Option<f64>) -> PyResult<Option<Duration>> {
    match timeout {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(crate::errors::to_py(mcpcore::Error::invalid_input(format!(
            "timeout must be positive, not {s}"
        )))),
    }
}
