//! What one MCP session owns: the Evidence it recorded, the cleanups still
//! pending, and the token that ends its running captures.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use rea_engine::capture::CaptureError;
use rea_engine::evidence::CaptureRecord;
use rea_engine::{BuildInfo, Host, SerializeError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::cleanup::PendingCleanups;
use crate::live::table::LiveTable;
use crate::live::tools::Starter;

/// One Evidence record held by the session.
pub(crate) struct Stored {
    /// `operation` of the envelope.
    pub(crate) operation: String,
    /// `predicate_type` of the envelope.
    pub(crate) predicate: String,
    /// The whole record as pretty JSON (what `resources/read` serves).
    pub(crate) text: Arc<str>,
    /// The record as JSON (for the compact tool result).
    pub(crate) document: Arc<Value>,
    /// The imported capture record (captures only), for comparison by id.
    pub(crate) capture: Option<Arc<(rea_engine::evidence::Evidence, CaptureRecord)>>,
}

/// The server session.
pub(crate) struct Session {
    pub(crate) host: Host,
    pub(crate) build: BuildInfo,
    records: Mutex<BTreeMap<String, Arc<Stored>>>,
    pending: Mutex<PendingCleanups>,
    ended: CancellationToken,
    /// The live sessions (`start_session` … `stop_session`).
    pub(crate) live: LiveTable,
    /// What starts a live session: the engine's, or a test's fake.
    pub(crate) starter: Box<Starter>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Session {
    pub(crate) fn new(host: Host, build: BuildInfo) -> Session {
        Session::with_starter(host, build, Box::new(crate::live::engine::start))
    }

    /// A session whose live sessions are started by `starter`.
    pub(crate) fn with_starter(host: Host, build: BuildInfo, starter: Box<Starter>) -> Session {
        Session {
            host,
            build,
            records: Mutex::default(),
            pending: Mutex::default(),
            ended: CancellationToken::new(),
            live: LiveTable::default(),
            starter,
        }
    }

    /// Records Evidence under its id (recording the same id twice keeps one).
    pub(crate) fn record(&self, id: String, stored: Stored) -> Arc<Stored> {
        let stored = Arc::new(stored);
        lock(&self.records).insert(id, Arc::clone(&stored));
        stored
    }

    /// Records `evidence` (already serialized as `document`) and returns the
    /// compact tool result that points at it; `capture` is the imported
    /// record of a capture, `None` for a comparison.
    pub(crate) fn record_and_reply(
        &self,
        evidence: rea_engine::evidence::Evidence,
        document: Value,
        capture: Option<Arc<(rea_engine::evidence::Evidence, CaptureRecord)>>,
        extra: Value,
    ) -> rmcp::model::CallToolResult {
        let id = evidence.evidence_id;
        let text: Arc<str> = match serde_json::to_string_pretty(&document) {
            Ok(text) => text.into(),
            Err(e) => return crate::reply::error(&SerializeError::new("the Evidence record")(e)),
        };
        let stored = self.record(
            id.clone(),
            Stored {
                operation: evidence.operation,
                predicate: evidence.predicate_type,
                text,
                document: Arc::new(document),
                capture,
            },
        );
        crate::reply::evidence(&id, &stored.document["normalized_result"], extra)
    }

    /// The Evidence recorded under `id`.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Stored>> {
        lock(&self.records).get(id).cloned()
    }

    /// Every recorded id with its operation, in id order.
    pub(crate) fn list(&self) -> Vec<(String, String)> {
        lock(&self.records).iter().map(|(id, s)| (id.clone(), s.operation.clone())).collect()
    }

    /// Keeps a failed cleanup attached to the session for later retries.
    pub(crate) fn keep_pending(&self, failure: CaptureError) {
        lock(&self.pending).push(failure);
    }

    /// Retries every pending cleanup; returns the failures still pending
    /// (their error details), empty when the session may capture again.
    /// Blocking: call from a blocking thread.
    pub(crate) fn admit(&self) -> Vec<Value> {
        let mut pending = lock(&self.pending);
        pending.retry_all(&self.host);
        pending.details()
    }

    /// Retries every pending cleanup at session end; returns how many remain.
    pub(crate) fn drain_pending(&self) -> usize {
        let mut pending = lock(&self.pending);
        pending.retry_all(&self.host);
        pending.len()
    }

    /// Ends the session: running captures are cancelled.
    pub(crate) fn end(&self) {
        self.ended.cancel();
    }

    /// The token cancelled at session end.
    pub(crate) fn ended(&self) -> &CancellationToken {
        &self.ended
    }
}
