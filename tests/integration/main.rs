//! Black-box tests of the built `rea` binary, one test binary for all.

mod compare_cli;
mod sandbox;
mod scenario_rejection;
mod util;
