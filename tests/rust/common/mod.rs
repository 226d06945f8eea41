//! Shared helpers for the cross-cutting tests.
