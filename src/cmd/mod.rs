//! One module per subcommand.

pub(crate) mod capture_process;
pub(crate) mod compare_process_captures;
pub(crate) mod completions;
pub(crate) mod doctor;
pub(crate) mod export_asciicast;
pub(crate) mod merge_suite_results;
pub(crate) mod record_scenario;
pub(crate) mod run_suite;
pub(crate) mod show;
pub(crate) mod suite_progress;
pub(crate) mod text;
