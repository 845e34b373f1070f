//! The progress of `rea run-suite` on stderr: on a terminal, a live line
//! redrawn in place (cases done of all, running, failures so far, elapsed)
//! with each failing case printed above it as it ends, and the verdict table
//! at the end; off a terminal, one line per finished case.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use rea_engine::suite::{CaseResult, Progress, SuiteObserver, SuiteRecord, Verdict};

use crate::view::{Style, Tone};

/// Draws the progress of a run.
pub(crate) struct Drawer {
    live: bool,
    style: Style,
}

impl Drawer {
    /// A live drawer when stderr is a terminal, lines otherwise.
    pub(crate) fn for_stderr() -> Drawer {
        let live = std::io::stderr().is_terminal();
        let colour = live && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Drawer { live, style: Style::new(colour) }
    }

    fn write(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
    }

    fn live_line(&self, p: Progress) {
        let failing = if p.failures == 0 {
            "0 failing".to_owned()
        } else {
            self.style.paint(Tone::Bad, &format!("{} failing", p.failures))
        };
        self.write(&format!(
            "\r\x1b[2Krea run-suite: {}/{} done, {} running, {failing}, {} elapsed",
            p.done,
            p.total,
            p.running,
            clock(p.elapsed)
        ));
    }

    /// Ends the drawing: the live line gives way to the verdict table.
    pub(crate) fn finish(&self, record: Option<&SuiteRecord>) {
        if !self.live {
            return;
        }
        self.write("\r\x1b[2K");
        if let Some(record) = record {
            self.write(&crate::view::suite::table_text(record, self.style));
        }
    }
}

/// `m:ss`.
fn clock(elapsed: Duration) -> String {
    let s = elapsed.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

impl SuiteObserver for Drawer {
    fn case_started(&mut self, _name: &str, progress: Progress) {
        if self.live {
            self.live_line(progress);
        }
    }

    fn case_finished(&mut self, result: &CaseResult, progress: Progress) {
        let verdict = self.style.status(result.verdict.as_str());
        let line =
            format!("[{}/{}] {} {verdict} ({} ms)", progress.done, progress.total, result.name, result.elapsed_ms);
        if !self.live {
            self.write(&format!("rea run-suite: {line}\n"));
            return;
        }
        if matches!(result.verdict, Verdict::Changed | Verdict::Error | Verdict::Unstable) {
            self.write(&format!("\r\x1b[2K  {line}\n"));
        }
        self.live_line(progress);
    }

    fn tick(&mut self, progress: Progress) {
        if self.live {
            self.live_line(progress);
        }
    }
}
