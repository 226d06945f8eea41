//! An RFC 6570 template and a URI through `resources::template::UriTemplate` (the template is the
//! host's, the URI the client's `resources/read`). Input: template, a newline, the URI.
//! Properties: no panic, matching in bounded time (libFuzzer's -timeout catches blow-ups), and
//! every variable a match returns is one the template names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::resources::template::UriTemplate;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (template, uri) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(t) = UriTemplate::parse(template) else { return };
    let names = t.variables();
    if let Some(vars) = t.matches(uri) {
        for k in vars.keys() {
            assert!(names.contains(&k.as_str()), "{k} is not a variable of {template}");
        }
    }
});
