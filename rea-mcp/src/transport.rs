//! The stdio transport of `rea mcp`: newline-delimited JSON-RPC 2.0 with a
//! bounded line, in front of the SDK's service loop.
//!
//! The SDK's own stdio transport drops an unparsable line and a line over
//! its length limit without a reply, and answers an invalid request with
//! `-32600` but no `id`. Here every line gets its answer:
//!
//! - a valid message goes to the SDK, which answers requests;
//! - a line that is not JSON gets `-32700` (parse error) with `id: null`;
//! - JSON that is not a valid message gets `-32600` (invalid request) with
//!   the message's `id` when it has a usable one (a string or a number); a
//!   notification gets no reply (JSON-RPC never answers one);
//! - a batch (an array) gets one `-32600` per member that is a request (MCP
//!   2025-06-18 removed batching), as a batch reply;
//! - a line of [`MAX_LINE`] bytes or more is refused with `-32600` without
//!   being kept in memory: only its first [`ID_PREFIX`] bytes are, to find
//!   its `id` if it comes before them. The server keeps serving.
//!
//! Every id comes back exactly as sent, its text included (`ids.rs`).
//!
//! Reads and the transport's own replies keep their progress in the
//! transport, because the service loop drops an unfinished `receive` when
//! another branch of its `select!` is ready: a dropped read resumes its line,
//! a dropped reply resumes where its bytes stopped.

use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::ids::ExactIds;
use tokio_util::sync::CancellationToken;

/// A line (without its newline) of this many bytes or more is refused.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;
/// Bytes of a refused line kept to find its `id`.
pub(crate) const ID_PREFIX: usize = 64 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// What one line asks of the transport.
#[derive(Debug)]
pub(crate) enum Line {
    /// A valid message, for the SDK.
    Message(Box<ClientJsonRpcMessage>),
    /// The transport's own reply.
    Reply(Value),
    /// Nothing to do (a blank line, an invalid notification).
    Nothing,
}

/// How one bounded line read ended.
enum Read {
    /// A whole line is in `line`.
    Line,
    /// The line reached [`MAX_LINE`]; its first bytes are in `prefix`.
    Oversized,
    /// The client closed stdin.
    Eof,
    /// Stdin failed.
    Failed(io::Error),
}

/// Newline-delimited JSON-RPC over `R`/`W`, answering malformed lines itself.
pub(crate) struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far (always under [`MAX_LINE`] bytes).
    line: Vec<u8>,
    /// While a refused line is being skipped: its first [`ID_PREFIX`] bytes.
    prefix: Option<Vec<u8>>,
    write: Arc<Mutex<W>>,
    /// The transport's reply being written, and how many bytes are out.
    reply: Option<(Vec<u8>, usize)>,
    /// Cancelled at the end of stdin, so running captures stop at once.
    ended: CancellationToken,
    eof: bool,
    /// The ids given a stand-in, shared with the replies the SDK sends.
    ids: Arc<std::sync::Mutex<ExactIds>>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    pub(crate) fn new(read: R, write: W, ended: CancellationToken) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            prefix: None,
            write: Arc::new(Mutex::new(write)),
            reply: None,
            ended,
            eof: false,
            ids: Arc::default(),
        }
    }

    /// Reads one line into `line`, never holding [`MAX_LINE`] bytes of it.
    async fn read_line(&mut self) -> Read {
        loop {
            let (consumed, ended) = {
                let available = match self.read.fill_buf().await {
                    Ok(available) => available,
                    Err(e) => return Read::Failed(e),
                };
                if available.is_empty() {
                    return Read::Eof;
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let content = newline.unwrap_or(available.len());
                if let Some(prefix) = &mut self.prefix {
                    let room = ID_PREFIX.saturating_sub(prefix.len()).min(content);
                    prefix.extend_from_slice(&available[..room]);
                } else if self.line.len() + content >= MAX_LINE {
                    let mut prefix = std::mem::take(&mut self.line);
                    prefix.truncate(ID_PREFIX);
                    let room = ID_PREFIX.saturating_sub(prefix.len()).min(content);
                    prefix.extend_from_slice(&available[..room]);
                    self.prefix = Some(prefix);
                } else {
                    self.line.extend_from_slice(&available[..content]);
                }
                (newline.map_or(available.len(), |i| i + 1), newline.is_some())
            };
            self.read.consume(consumed);
            if ended {
                return if self.prefix.is_some() { Read::Oversized } else { Read::Line };
            }
        }
    }

    /// Writes the pending reply, resuming where a dropped call stopped.
    async fn write_reply(&mut self) -> io::Result<()> {
        let mut write = self.write.lock().await;
        while let Some((bytes, written)) = &mut self.reply {
            if *written == bytes.len() {
                write.flush().await?;
                self.reply = None;
                break;
            }
            match write.write(&bytes[*written..]).await? {
                0 => return Err(io::ErrorKind::WriteZero.into()),
                n => *written += n,
            }
        }
        Ok(())
    }

    /// The next message for the SDK, answering every malformed line on the way.
    async fn next_message(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.reply.is_some() && self.write_reply().await.is_err() {
                return None;
            }
            if self.eof {
                return None;
            }
            let line = match self.read_line().await {
                Read::Line => classify_exact(&self.ids, &std::mem::take(&mut self.line)),
                Read::Oversized => oversized_exact(&self.ids, &self.prefix.take().unwrap_or_default()),
                end @ (Read::Eof | Read::Failed(_)) => {
                    if let Read::Failed(e) = end {
                        eprintln!("rea mcp: stdin could not be read ({e}); the session ends.");
                    }
                    // An unterminated last line is still a line.
                    self.eof = true;
                    self.ended.cancel();
                    match self.prefix.take() {
                        Some(prefix) => oversized_exact(&self.ids, &prefix),
                        None => classify_exact(&self.ids, &std::mem::take(&mut self.line)),
                    }
                }
            };
            match line {
                Line::Message(message) => return Some(*message),
                Line::Reply(reply) => self.reply = Some((lock(&self.ids).line(&reply), 0)),
                Line::Nothing => {}
            }
        }
    }
}

/// What `line` asks for, its id given a stand-in if it needs one.
fn classify_exact(ids: &std::sync::Mutex<ExactIds>, line: &[u8]) -> Line {
    let line = lock(ids).stand_in(line).into_owned();
    classify(&line)
}

/// The reply to a refused oversized line, its id given a stand-in if it needs one.
fn oversized_exact(ids: &std::sync::Mutex<ExactIds>, prefix: &[u8]) -> Line {
    let prefix = lock(ids).stand_in(prefix).into_owned();
    Line::Reply(oversized(&prefix))
}

/// The ids, whatever a panicking holder left (the map stays consistent).
fn lock(ids: &std::sync::Mutex<ExactIds>) -> std::sync::MutexGuard<'_, ExactIds> {
    ids.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A message the SDK sends, as one line, a stand-in id written as sent.
fn message_bytes(item: &ServerJsonRpcMessage, ids: &std::sync::Mutex<ExactIds>) -> io::Result<Vec<u8>> {
    let mut ids = lock(ids);
    if ids.is_empty() {
        let mut bytes = serde_json::to_vec(item).map_err(io::Error::other)?;
        bytes.push(b'\n');
        return Ok(bytes);
    }
    Ok(ids.line(&serde_json::to_value(item).map_err(io::Error::other)?))
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let write = Arc::clone(&self.write);
        let bytes = message_bytes(&item, &self.ids);
        async move {
            let bytes = bytes?;
            let mut write = write.lock().await;
            write.write_all(&bytes).await?;
            write.flush().await
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.next_message()
    }

    async fn close(&mut self) -> io::Result<()> {
        self.write.lock().await.flush().await
    }
}

/// A JSON-RPC error reply.
fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The reply to a refused oversized line.
fn oversized(prefix: &[u8]) -> Value {
    let message = format!(
        "Invalid Request: the message is {MAX_LINE} bytes or more, over rea mcp's limit for one line; it was discarded unread. Send a smaller message."
    );
    error(sniff_id(prefix), INVALID_REQUEST, message)
}

/// What `line` (without its newline) asks for.
pub(crate) fn classify(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Nothing;
    }
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => return Line::Message(Box::new(message)),
        Err(e) => e,
    };
    match serde_json::from_slice::<Value>(line) {
        Err(e) => {
            Line::Reply(self::error(Value::Null, PARSE_ERROR, format!("Parse error: the line is not JSON ({e})")))
        }
        Ok(Value::Array(items)) => batch(&items),
        Ok(value) => invalid(&value, &error.to_string()).map_or(Line::Nothing, Line::Reply),
    }
}

/// The reply to valid JSON that is not a valid message, if it gets one.
fn invalid(value: &Value, why: &str) -> Option<Value> {
    let Value::Object(object) = value else {
        return Some(error(Value::Null, INVALID_REQUEST, "Invalid Request: a message is a JSON object".into()));
    };
    let id = match object.get("id") {
        // A notification is never answered, even a malformed one.
        None if object.get("method").is_some_and(Value::is_string) => return None,
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    Some(error(id, INVALID_REQUEST, format!("Invalid Request: {why}")))
}

/// The reply to a batch: one error per member that is not a notification.
fn batch(items: &[Value]) -> Line {
    const WHY: &str = "batches are not supported (MCP removed JSON-RPC batching); send each message on its own line";
    if items.is_empty() {
        return Line::Reply(error(Value::Null, INVALID_REQUEST, "Invalid Request: an empty batch".into()));
    }
    let replies: Vec<Value> = items
        .iter()
        .filter_map(|item| {
            let object = item.as_object();
            let id = object.and_then(|o| o.get("id"));
            match id {
                None if object.and_then(|o| o.get("method")).is_some_and(Value::is_string) => None,
                Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
                _ => Some(Value::Null),
            }
            .map(|id| error(id, INVALID_REQUEST, format!("Invalid Request: {WHY}")))
        })
        .collect();
    if replies.is_empty() { Line::Nothing } else { Line::Reply(Value::Array(replies)) }
}

/// The top-level `id` of a JSON object cut short, when it is a string or a
/// number that lies wholly within `prefix`; `null` otherwise.
pub(crate) fn sniff_id(prefix: &[u8]) -> Value {
    let prefix = prefix.strip_prefix("\u{feff}".as_bytes()).unwrap_or(prefix);
    let mut found = None;
    // The object is cut short, so the parse always fails in the end; the
    // sniffer has kept the id if it came first.
    let _ = IdSniffer(&mut found).deserialize(&mut serde_json::Deserializer::from_slice(prefix));
    match found {
        Some(id @ (Value::String(_) | Value::Number(_))) => id,
        _ => Value::Null,
    }
}

/// Reads the keys of an object up to `id`, skipping the values before it.
struct IdSniffer<'a>(&'a mut Option<Value>);

impl<'de> DeserializeSeed<'de> for IdSniffer<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for IdSniffer<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "id" {
                *self.0 = Some(map.next_value::<Value>()?);
                return Ok(());
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "transport_tests.rs"]
mod tests;
