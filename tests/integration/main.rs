//! Black-box tests of the built `rea` binary, one test binary for all.

mod capture_process;
mod code_invariants;
mod compare_behaviour;
mod compare_cli;
mod compare_corpus;
mod compare_trace;
mod doctor;
mod filesystem;
mod sandbox;
mod scenario_rejection;
mod stub;
#[cfg_attr(feature = "force-stub", expect(dead_code, reason = "the stub tests use only rea_bin"))]
mod util;
