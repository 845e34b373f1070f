//! Black-box tests of the built `rea` binary, one test binary for all.

mod capture_process;
mod util;
