//! `rea compare-process-captures LEFT RIGHT [TRACE]`.

use std::path::Path;

use rea_engine::UserError;
use rea_engine::compare::{Side, TraceSpec, compare, parse_trace_spec};
use rea_engine::evidence::{CaptureRecord, Evidence, import_capture_record};
use rea_engine::input::{InputError, parse_json_bytes, read_capped, read_json_file};

use crate::Outcome;
use crate::cli::CompareArgs;
use crate::errors::{CliError, failure};

fn load(path: &Path) -> Result<(Evidence, CaptureRecord), Box<dyn UserError>> {
    let bytes = read_capped("capture", path).map_err(|e| Box::new(e) as Box<dyn UserError>)?;
    let value = match parse_json_bytes("capture", path, &bytes) {
        Ok(value) => value,
        // rea's default output is TOON: say exactly what to do with it.
        Err(InputError::InvalidJson { .. }) if crate::document::decode_toon_evidence(&bytes).is_some() => {
            return Err(Box::new(CliError::ToonCapture { path: path.to_owned() }));
        }
        Err(e) => return Err(Box::new(e)),
    };
    drop(bytes);
    import_capture_record(&path.display().to_string(), value).map_err(|e| Box::new(e) as Box<dyn UserError>)
}

fn load_trace(path: &Path) -> Result<TraceSpec, Box<dyn UserError>> {
    let value = read_json_file("trace specification", path).map_err(|e| Box::new(e) as Box<dyn UserError>)?;
    parse_trace_spec(value).map_err(|mut e| {
        e.file = Some(path.to_owned());
        Box::new(e) as Box<dyn UserError>
    })
}

pub(crate) fn run(args: CompareArgs) -> Outcome {
    let (left, right) = match (load(&args.left), load(&args.right)) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => return failure(e.as_ref()),
    };
    let trace = match args.trace.as_deref().map(load_trace).transpose() {
        Ok(t) => t,
        Err(e) => return failure(e.as_ref()),
    };
    let (l, r) = (Side { evidence: &left.0, record: &left.1 }, Side { evidence: &right.0, record: &right.1 });
    match compare(l, r, trace.as_ref()) {
        Ok(evidence) => Outcome { document: serde_json::to_value(evidence).unwrap_or_default(), success: true },
        Err(e) => failure(&e),
    }
}
