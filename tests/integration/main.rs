//! Black-box tests of the built `rea` binary, one test binary for all.

mod sandbox;
mod scenario_rejection;
mod util;
