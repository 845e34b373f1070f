//! `rea mcp`: the MCP server of rea, over stdio, on the official Rust MCP SDK
//! (`rmcp`).
//!
//! The SDK's async runtime (tokio) lives only in this crate. The engine stays
//! on smol: captures run on tokio's blocking threads, where the engine drives
//! its own futures, and comparisons are plain function calls.
//!
//! The binary passes in the host backend (chosen in its `host.rs`, the only
//! OS switch) and its build identity; [`serve`] runs the session until the
//! client closes stdin, then cancels running captures through the same
//! cleanup path as SIGINT and retries any cleanup still pending.

mod capture;
mod cleanup;
mod compare;
mod errors;
mod export;
mod fault;
mod ids;
mod live;
mod reply;
mod server;
mod session;
mod suite;
mod transport;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rea_engine::{BuildInfo, Host};

/// How long session end waits for cancelled captures to finish their cleanup.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(60);

/// Serves MCP on stdin/stdout until the client ends the session. Diagnostics
/// go to stderr; stdout carries only protocol messages.
pub fn serve(host: Host, build: BuildInfo) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("rea mcp: the async runtime could not start: {e}. Run `rea doctor`, then try again.");
            return ExitCode::FAILURE;
        }
    };
    let session = Arc::new(session::Session::new(fault::apply(host), build));
    let served = runtime.block_on(server::run(Arc::clone(&session)));
    // Session end: cancel running captures, let their cleanup finish, then
    // retry whatever cleanup is still pending.
    session.end();
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    live::tools::end_all(&session);
    let still_pending = session.drain_pending();
    if still_pending > 0 {
        eprintln!(
            "rea mcp: {still_pending} capture cleanup(s) of this session are still incomplete at session end; inspect the processes named in their cleanup_incomplete errors and stop them if they are yours."
        );
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rea mcp: {message}");
            ExitCode::FAILURE
        }
    }
}
