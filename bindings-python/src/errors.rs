//! mcpcore errors as Python exceptions: the classes live in `mcpcore.errors` (pure Python, so
//! they are ordinary, picklable, documented classes); this builds their instances.

use mcpcore::host::HostReply;
use mcpcore::{Error, ErrorKind};
use pyo3::prelude::*;

/// Converts an mcpcore error into the matching Python exception, with `code`, `data` (JSON
/// text, decoded by the class) and `http_status`.
pub(crate) fn to_py(e: Error) -> PyErr {
    crate::gil::attach(|py| {
        let build = || -> PyResult<PyErr> {
            let module = py.import("mcpcore.errors")?;
            let data = e.data().map(|d| d.to_string());
            let args = (e.kind().as_str(), e.message().to_owned(), e.code().0, data, e.http_status());
            // An AuthError also carries the OAuth error, its description, URI and challenge.
            let auth = e
                .auth_error()
                .map(|a| (a.error.clone(), a.description.clone(), a.uri.clone(), a.challenge.clone()));
            let kw = pyo3::types::PyDict::new(py);
            kw.set_item("auth", auth)?;
            let instance = module.getattr("_from_native")?.call(args, Some(&kw))?;
            Ok(PyErr::from_value(instance))
        };
        build().unwrap_or_else(|import_failed| import_failed)
    })
}

/// An `mcpcore.errors.McpError` with a non-zero code, as the JSON-RPC error it names.
fn as_rpc(py: Python<'_>, err: &PyErr) -> Option<Error> {
    let class = py.import("mcpcore.errors").ok()?.getattr("McpError").ok()?;
    let value = err.value(py);
    if !value.is_instance(&class).ok()? {
        return None;
    }
    // mcpcore's own subclasses (timeouts, invalid input…) raised inside a tool are tool failures;
    // McpError itself, or a host subclass of it, names the JSON-RPC error to send.
    let ty = value.get_type();
    let own = ty.getattr("__module__").ok()?.extract::<String>().ok()? == "mcpcore.errors";
    if own && ty.name().ok()? != "McpError" {
        return None;
    }
    let code: i32 = value.getattr("code").ok()?.extract().ok()?;
    if code == 0 {
        return None;
    }
    let message: String = value.getattr("message").ok()?.extract().ok()?;
    let mut data = mcpcore::ErrorData::new(mcpcore::ErrorCode(code), message);
    let raw = value.getattr("data").ok()?;
    if !raw.is_none() {
        let text: String = py.import("json").ok()?.call_method1("dumps", (raw,)).ok()?.extract().ok()?;
        data = data.with_data(serde_json::from_str(&text).ok()?);
    }
    Some(Error::rpc(data))
}

/// An `mcpcore.errors.InputRequired` (2026-07-28: the handler let a missing answer propagate),
/// as the core error the server turns into an `InputRequiredResult`.
fn as_input_required(py: Python<'_>, err: &PyErr) -> Option<Error> {
    let class = py.import("mcpcore.errors").ok()?.getattr("InputRequired").ok()?;
    let value = err.value(py);
    if !value.is_instance(&class).ok()? {
        return None;
    }
    let message = value.str().map(|s| s.to_string()).unwrap_or_default();
    Some(Error::new(ErrorKind::InputRequired, message))
}

/// What a Python exception raised by a handler means: `InputRequired` stays itself; an
/// `McpError` (or a host subclass) with a code is that JSON-RPC error; anything else is a
/// failure carrying `Type: message` (an `isError: true` result for a tool, `-32603` for a
/// resource or prompt).
pub(crate) fn reply_of(err: PyErr) -> HostReply {
    crate::gil::attach(|py| {
        if let Some(input) = as_input_required(py, &err) {
            return HostReply::InputRequired(input.message().to_owned());
        }
        if let Some(rpc) = as_rpc(py, &err) {
            return HostReply::Rpc(rpc.rpc_error().cloned().expect("an rpc error"));
        }
        HostReply::Failure(describe_in(py, &err))
    })
}

/// `Type: message` of a Python exception (`Type` alone when the message is empty).
pub(crate) fn describe(err: &PyErr) -> String {
    crate::gil::attach(|py| describe_in(py, err))
}

fn describe_in(py: Python<'_>, err: &PyErr) -> String {
    let name = err.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".into());
    let text = err.value(py).str().map(|s| s.to_string()).unwrap_or_default();
    if text.is_empty() {
        name
    } else {
        format!("{name}: {text}")
    }
}
