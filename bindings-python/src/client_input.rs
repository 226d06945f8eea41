//! `ClientInput`: the host's answers to a server's requests for input (elicitation, sampling,
//! roots), given at connect. Each is a Python callable (sync or async) run through the core's
//! host bridge (`mcpcore::client::HostInput`), which decides what its return value answers;
//! roots may instead be a fixed list the client keeps itself (`Client.set_roots`).

use crate::handler::{LoopSlot, PyCallback};
use crate::{errors, parse_as};
use mcpcore::client::{ClientOptions, HostInput};
use mcpcore::protocol::roots::Root;
use pyo3::prelude::*;
use std::sync::Arc;

/// The host's input handlers (see `mcpcore.Client.connect_stdio`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct ClientInput {
    elicitation: Option<(Py<PyAny>, bool)>,
    url: bool,
    sampling: Option<(Py<PyAny>, bool)>,
    roots_callback: Option<(Py<PyAny>, bool)>,
    roots: Option<Vec<Root>>,
    loop_slot: Arc<LoopSlot>,
}

#[pymethods]
impl ClientInput {
    /// Each callable is `callback(params, None)` returning the answer (or an awaitable of it);
    /// `*_async` says it returns a coroutine. `roots` is a JSON list of `{uri, name}`.
    #[new]
    #[pyo3(signature = (elicitation=None, elicitation_async=false, url=true, sampling=None, sampling_async=false,
                        roots_callback=None, roots_async=false, roots=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        elicitation: Option<Py<PyAny>>,
        elicitation_async: bool,
        url: bool,
        sampling: Option<Py<PyAny>>,
        sampling_async: bool,
        roots_callback: Option<Py<PyAny>>,
        roots_async: bool,
        roots: Option<&str>,
    ) -> PyResult<Self> {
        let roots = roots.map(|r| parse_as::<Vec<Root>>("roots", r)).transpose()?;
        if roots.is_some() && roots_callback.is_some() {
            return Err(errors::to_py(mcpcore::Error::invalid_input(
                "give roots as a list or as a callback, not both",
            )));
        }
        Ok(ClientInput {
            elicitation: elicitation.map(|c| (c, elicitation_async)),
            url,
            sampling: sampling.map(|c| (c, sampling_async)),
            roots_callback: roots_callback.map(|c| (c, roots_async)),
            roots,
            loop_slot: Arc::default(),
        })
    }
}

impl ClientInput {
    /// Sets `options.input` and `options.roots`; async callbacks run on the loop running now.
    pub(crate) fn apply(&self, py: Python<'_>, options: &mut ClientOptions) {
        self.loop_slot.bind(py);
        let cb = |(c, is_async): &(Py<PyAny>, bool)| {
            PyCallback::new(c.clone_ref(py), *is_async, &self.loop_slot)
                as Arc<dyn mcpcore::host::HostCallback>
        };
        let mut input = HostInput::new();
        if let Some(e) = &self.elicitation {
            input = input.elicitation(cb(e), self.url);
        }
        if let Some(s) = &self.sampling {
            input = input.sampling(cb(s));
        }
        if let Some(r) = &self.roots_callback {
            input = input.roots(cb(r));
        }
        if !input.is_empty() {
            options.input = Some(Arc::new(input));
        }
        options.roots = self.roots.clone();
    }
}
