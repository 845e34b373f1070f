//! Black-box tests of the built `rea` binary, one test binary for all.

mod adversarial;
mod asciicast;
mod capture_process;
mod cli;
mod code_invariants;
mod compare_behaviour;
mod compare_cli;
mod compare_corpus;
mod compare_golden;
mod compare_trace;
mod doctor;
mod document_bound;
mod exact_processes;
mod filesystem;
mod keeper;
mod lost_output;
mod mcp;
mod mcp_sessions;
mod record_scenario;
mod redaction;
mod rendered_terminal;
mod sandbox;
mod scenario_rejection;
mod screen_lens;
mod screens;
mod special_inputs;
mod stub;
mod suites;
mod tools;
#[cfg_attr(feature = "force-stub", expect(dead_code, reason = "the stub tests use only rea_bin"))]
mod util;
mod view_golden;
mod waits;
mod walkthrough;
