//! One case, run to its end: each side prepared and captured through the
//! same engine calls as `rea capture-process` (`prepare_with`,
//! `capture_with_cleanup_retry`, the sealed writer), each written document
//! read back through the capture loader, and the two compared as
//! `rea compare-process-captures` compares them. The work directory is
//! refilled from the fixture before each capture.

use std::ffi::OsString;
use std::fs::File;
use std::path::PathBuf;
use std::time::Instant;

use super::golden::{golden_path, read_golden};
use super::model::Goldens;
use super::outdir::{OutDir, Staged, document_path};
use super::record::*;
use super::stop::Stop;
use super::workdir::{CaseDir, WorkRoot};
use crate::BuildInfo;
use crate::capture::progress::NullProgress;
use crate::capture::{CaptureError, CaptureRequest, capture_with_cleanup_retry, prepare_with};
use crate::compare::{CompareOptions, ComparisonRecord, DEFAULT_TIMING_TOLERANCE_MS, Side, TerminalLens, compare_with};
use crate::error::UserError;
use crate::evidence::{CaptureRecord, Evidence, load_capture};
use crate::host::Host;
use crate::scenario::{DigestCache, Scenario, comparison_contract};

/// A case, planned: its scenarios validated, its fixture found.
#[derive(Debug, Clone)]
pub(crate) struct PlannedCase {
    /// Its name.
    pub(crate) name: String,
    /// The fixture directory, absolute.
    pub(crate) fixture: Option<PathBuf>,
    /// The authority's scenario (`None` when goldens stand in for it).
    pub(crate) authority: Option<Scenario>,
    /// The reconstruction's scenario.
    pub(crate) reconstruction: Scenario,
}

/// What every case of a run shares.
pub(crate) struct Context<'a> {
    pub(crate) host: &'a Host,
    pub(crate) build: BuildInfo,
    pub(crate) environment: &'a [(OsString, OsString)],
    pub(crate) digests: &'a DigestCache,
    pub(crate) out: &'a OutDir,
    pub(crate) work: &'a WorkRoot,
    pub(crate) stop: &'a Stop,
    pub(crate) self_check: bool,
    pub(crate) goldens: Option<&'a Goldens>,
    pub(crate) terminal_lens: TerminalLens,
}

/// Why a case ended early.
enum Halt {
    /// It failed: the case is `error`.
    Failed(CaseFailure),
    /// The run was stopped: the case did not finish.
    Interrupted,
}

impl From<CaseFailure> for Halt {
    fn from(f: CaseFailure) -> Halt {
        Halt::Failed(f)
    }
}

fn failure(err: &dyn UserError) -> CaseFailure {
    CaseFailure { code: err.code().to_owned(), message: err.to_string() }
}

fn io_failure(what: &str, path: &std::path::Path, e: &std::io::Error) -> CaseFailure {
    CaseFailure { code: "write_failed".into(), message: format!("{what} {}: {e}", path.display()) }
}

/// The documents of a case.
#[derive(Debug, Clone, Copy)]
enum Doc {
    Authority,
    AuthorityRepeat,
    SelfComparison,
    Reconstruction,
    Comparison,
}

impl Doc {
    fn file(self) -> &'static str {
        match self {
            Doc::Authority => "authority.json",
            Doc::AuthorityRepeat => "authority-repeat.json",
            Doc::SelfComparison => "self-comparison.json",
            Doc::Reconstruction => "reconstruction.json",
            Doc::Comparison => "comparison.json",
        }
    }

    fn slot(self, documents: &mut Documents) -> &mut Option<DocumentRef> {
        match self {
            Doc::Authority => &mut documents.authority,
            Doc::AuthorityRepeat => &mut documents.authority_repeat,
            Doc::SelfComparison => &mut documents.self_comparison,
            Doc::Reconstruction => &mut documents.reconstruction,
            Doc::Comparison => &mut documents.comparison,
        }
    }
}

/// A capture read back from its document.
type Loaded = (Evidence, CaptureRecord);

/// What decided the verdict.
struct Decided {
    verdict: Verdict,
    compared: Option<ComparisonRecord>,
}

/// Runs `case`; `None` when the run was stopped before it finished.
pub(crate) fn run_case(ctx: &Context<'_>, case: &PlannedCase) -> Option<CaseResult> {
    let started = Instant::now();
    let mut documents = Documents::default();
    let outcome = CaseRun::start(ctx, case).and_then(|mut run| {
        let decided = run.decide();
        documents = std::mem::take(&mut run.documents);
        match decided {
            // Dropped: its staged documents go, and it is not a finished case.
            Err(Halt::Interrupted) => Err(Halt::Interrupted),
            decided => run.finish().map_err(Halt::Failed).and(decided),
        }
    });
    let (verdict, compared, error) = match outcome {
        Ok(Decided { verdict, compared }) => (verdict, compared, None),
        Err(Halt::Failed(f)) => (Verdict::Error, None, Some(f)),
        Err(Halt::Interrupted) => return None,
    };
    Some(CaseResult {
        name: case.name.clone(),
        verdict,
        dimensions: compared.as_ref().map(DimensionStatuses::of),
        first_divergence: compared.map(|c| c.first_divergence),
        documents,
        error,
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
}

/// A case being run: its staged documents and its locked work directory.
struct CaseRun<'a> {
    ctx: &'a Context<'a>,
    case: &'a PlannedCase,
    staged: Option<Staged>,
    dir: CaseDir,
    documents: Documents,
}

impl<'a> CaseRun<'a> {
    fn start(ctx: &'a Context<'a>, case: &'a PlannedCase) -> Result<CaseRun<'a>, Halt> {
        let dir = ctx.work.case(&case.name).map_err(|e| CaseFailure {
            code: "work_directory_unusable".into(),
            message: format!("the case's work directory cannot be used: {e}"),
        })?;
        let staged = ctx
            .out
            .stage(&case.name)
            .map_err(|e| io_failure("cannot stage the case's documents in", ctx.out.path(), &e))?;
        Ok(CaseRun { ctx, case, staged: Some(staged), dir, documents: Documents::default() })
    }

    /// Moves the documents into place (also those of a failed case).
    fn finish(mut self) -> Result<(), CaseFailure> {
        let staged = self.staged.take().expect("staged until finished");
        staged.commit().map_err(|e| io_failure("cannot move the case's documents into", self.ctx.out.path(), &e))
    }

    fn staged(&self) -> &Staged {
        self.staged.as_ref().expect("staged until finished")
    }

    fn decide(&mut self) -> Result<Decided, Halt> {
        match self.ctx.goldens {
            Some(Goldens::Check(dir)) => self.against_golden(golden_path(dir, &self.case.name)),
            Some(Goldens::Record(dir)) => self.record_golden(golden_path(dir, &self.case.name)),
            None => self.both_sides(),
        }
    }

    fn authority(&self) -> &'a Scenario {
        self.case.authority.as_ref().expect("planned with an authority")
    }

    /// The authority (twice with `--self-check`), the reconstruction, the comparison.
    fn both_sides(&mut self) -> Result<Decided, Halt> {
        let authority = self.capture(self.authority(), Doc::Authority)?;
        let unstable = self.self_check(&authority)?;
        let reconstruction = self.capture(&self.case.reconstruction, Doc::Reconstruction)?;
        let comparison = self.compare(&authority, &reconstruction, Doc::Comparison)?;
        Ok(match unstable {
            Some(self_comparison) => Decided { verdict: Verdict::Unstable, compared: Some(self_comparison) },
            None => Decided { verdict: Verdict::of(&comparison), compared: Some(comparison) },
        })
    }

    /// With `--self-check`, the authority again and the two compared: the
    /// self-comparison when they differ.
    fn self_check(&mut self, authority: &Loaded) -> Result<Option<ComparisonRecord>, Halt> {
        if !self.ctx.self_check {
            return Ok(None);
        }
        let repeat = self.capture(self.authority(), Doc::AuthorityRepeat)?;
        let compared = self.compare(authority, &repeat, Doc::SelfComparison)?;
        Ok(compared.observed_difference().then_some(compared))
    }

    /// `--goldens`: the golden stands in for the authority.
    fn against_golden(&mut self, golden: PathBuf) -> Result<Decided, Halt> {
        let request = self.prepare(&self.case.reconstruction)?;
        let contract = comparison_contract(&request.resolved)
            .map_err(|e| CaseFailure { code: "internal_error".into(), message: e.to_string() })?;
        let authority = read_golden(&golden, &contract, self.ctx.host.open_input)?;
        let copy = self.staged().file(Doc::Authority.file());
        std::fs::copy(&golden, &copy).map_err(|e| io_failure("cannot copy the golden to", &copy, &e))?;
        self.set(Doc::Authority, &authority.0.evidence_id);
        let reconstruction = self.run(request, Doc::Reconstruction)?;
        let comparison = self.compare(&authority, &reconstruction, Doc::Comparison)?;
        Ok(Decided { verdict: Verdict::of(&comparison), compared: Some(comparison) })
    }

    /// `--record-goldens`: the authority (checked against itself with
    /// `--self-check`) becomes the golden.
    fn record_golden(&mut self, golden: PathBuf) -> Result<Decided, Halt> {
        let authority = self.capture(self.authority(), Doc::Authority)?;
        if !self.ctx.self_check {
            self.store_golden(&golden)?;
            return Ok(Decided { verdict: Verdict::Recorded, compared: None });
        }
        let repeat = self.capture(self.authority(), Doc::AuthorityRepeat)?;
        let compared = self.compare(&authority, &repeat, Doc::SelfComparison)?;
        if compared.observed_difference() {
            return Ok(Decided { verdict: Verdict::Unstable, compared: Some(compared) });
        }
        self.store_golden(&golden)?;
        Ok(Decided { verdict: Verdict::Recorded, compared: Some(compared) })
    }

    /// Copies the staged authority to `golden` (whole or not at all).
    fn store_golden(&self, golden: &std::path::Path) -> Result<(), CaseFailure> {
        let partial = golden.with_extension("json.partial");
        let copied = std::fs::copy(self.staged().file(Doc::Authority.file()), &partial)
            .and_then(|_| std::fs::rename(&partial, golden));
        copied.map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            io_failure("cannot record the golden", golden, &e)
        })
    }

    /// Refills the work directory and prepares a capture of `scenario` in it.
    fn prepare(&self, scenario: &Scenario) -> Result<CaptureRequest, Halt> {
        if self.ctx.stop.fired().is_some() {
            return Err(Halt::Interrupted);
        }
        self.dir.refill(self.case.fixture.as_deref()).map_err(|e| CaseFailure {
            code: "work_directory_unusable".into(),
            message: format!("the case's work directory cannot be refilled: {e}"),
        })?;
        let c = self.ctx;
        prepare_with(c.host, scenario.clone(), self.dir.path(), c.environment.to_vec(), c.build, c.digests)
            .map_err(|e| Halt::Failed(failure(&e)))
    }

    /// Captures `scenario` into document `file` and reads it back.
    fn capture(&mut self, scenario: &Scenario, doc: Doc) -> Result<Loaded, Halt> {
        let request = self.prepare(scenario)?;
        self.run(request, doc)
    }

    fn run(&mut self, request: CaptureRequest, doc: Doc) -> Result<Loaded, Halt> {
        let c = self.ctx;
        let sealed =
            match capture_with_cleanup_retry(c.host, request, c.stop.cancellation(), std::sync::Arc::new(NullProgress))
            {
                Ok(sealed) => sealed,
                Err(CaptureError::Cancelled { .. }) if c.stop.fired().is_some() => return Err(Halt::Interrupted),
                Err(e) => return Err(Halt::Failed(failure(&e))),
            };
        let path = self.staged().file(doc.file());
        File::create(&path).and_then(|f| sealed.write_json(f)).map_err(|e| io_failure("cannot write", &path, &e))?;
        let loaded = load_capture(&path, c.host.open_input).map_err(|e| failure(&e))?;
        self.set(doc, sealed.evidence_id());
        Ok(loaded)
    }

    /// Compares two captures into document `file`, as `rea
    /// compare-process-captures LEFT RIGHT` does.
    fn compare(&mut self, left: &Loaded, right: &Loaded, doc: Doc) -> Result<ComparisonRecord, Halt> {
        let options =
            CompareOptions { timing_tolerance_ms: DEFAULT_TIMING_TOLERANCE_MS, terminal_lens: self.ctx.terminal_lens };
        let (l, r) = (Side { evidence: &left.0, record: &left.1 }, Side { evidence: &right.0, record: &right.1 });
        let sealed = compare_with(l, r, None, options).map_err(|e| failure(&e))?;
        let path = self.staged().file(doc.file());
        File::create(&path).and_then(|f| sealed.write_json(f)).map_err(|e| io_failure("cannot write", &path, &e))?;
        self.set(doc, sealed.evidence_id());
        Ok(sealed.record().clone())
    }

    fn set(&mut self, doc: Doc, evidence_id: &str) {
        let reference =
            DocumentRef { path: document_path(&self.case.name, doc.file()), evidence_id: evidence_id.to_owned() };
        *doc.slot(&mut self.documents) = Some(reference);
    }
}
