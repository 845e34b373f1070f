//! One module per subcommand.

pub(crate) mod capture_process;
pub(crate) mod compare_process_captures;
pub(crate) mod doctor;
