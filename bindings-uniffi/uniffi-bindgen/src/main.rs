//! `uniffi-bindgen`: generates the Kotlin and Swift bindings of `mcpcore-uniffi` in library mode:
//! `uniffi-bindgen generate --no-format target/debug/libmcpcore_uniffi.so -l kotlin -o OUT`.

fn main() {
    uniffi::uniffi_bindgen_main()
}
