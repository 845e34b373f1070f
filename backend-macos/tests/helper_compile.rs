//! The helper-compile and token-reader rules, with stand-in compiler and
//! helper shell scripts (no Swift compiler exists here): success, failure
//! with long diagnostics, a hang past the deadline, bad settings, the module
//! cache kept and the private directory removed, cancellation, and a query
//! admitted while the reader closes.
#![cfg(unix)]

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rea_backend_macos::compile::{self, CompileError, PrivateDir};
use rea_backend_macos::config::{self, CompileSettings, Compiler};
use rea_backend_macos::protocol::{ReadError, Reading};
use rea_backend_macos::reader::{Cancel, QueryError, TokenReader};
use rea_engine::host::Pid;

/// A helper answering every PID with an error, after an optional gate.
const ANSWERING_HELPER: &str = r#"#!/bin/sh
echo "rea-token-reader 1"
for pid in "$@"; do echo "error $pid gone"; done
echo "done $#"
"#;

fn write_script(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A work area with a stand-in `swiftc` whose behaviour is `body` (a shell
/// fragment run after the arguments are logged) and a stand-in SDK.
struct StandIn {
    root: tempfile::TempDir,
}

impl StandIn {
    fn new(body: &str) -> StandIn {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("sdk")).unwrap();
        std::fs::write(root.path().join("helper.sh"), ANSWERING_HELPER).unwrap();
        let log = root.path().join("log");
        let script = format!(
            r#"#!/bin/sh
{{
  printf 'args:'; printf ' %s' "$@"; echo
  echo "clang_cache=${{CLANG_MODULE_CACHE_PATH:-unset}}"
  echo "tmpdir=$TMPDIR"
}} >> "{log}"
helper="{helper}"
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; fi
  shift
done
{body}
"#,
            log = log.display(),
            helper = root.path().join("helper.sh").display(),
        );
        write_script(&root.path().join("swiftc"), &script);
        StandIn { root }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    fn settings(&self, timeout_ms: u32, cache: Option<PathBuf>) -> CompileSettings {
        CompileSettings {
            compiler: Compiler::Direct { swiftc: self.path("swiftc"), sdk: self.path("sdk") },
            module_cache: cache,
            timeout_ms,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.path("log")).unwrap_or_default()
    }

    /// The private directory the compiler ran in (the parent of its TMPDIR).
    fn private_dir(&self) -> PathBuf {
        let log = self.log();
        let tmp = log.lines().find_map(|l| l.strip_prefix("tmpdir=")).expect("compiler never ran");
        Path::new(tmp).parent().unwrap().to_owned()
    }
}

/// Installs the answering helper at `$out`.
const SUCCESS: &str = r#"cp "$helper" "$out" && chmod 755 "$out""#;

fn wait_for(what: &str, deadline: Duration, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + deadline;
    while !done() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_successful_compile_uses_the_sdk_and_cache_then_close_removes_only_the_private_dir() {
    let standin = StandIn::new(SUCCESS);
    let cache = standin.path("cache/modules");
    let reader = TokenReader::open(&standin.settings(120_000, Some(cache.clone()))).unwrap();

    let log = standin.log();
    let sdk = standin.path("sdk");
    let args = log.lines().find(|l| l.starts_with("args:")).unwrap();
    assert!(
        args.starts_with(&format!("args: -sdk {} -module-cache-path {} -O -o ", sdk.display(), cache.display())),
        "{args}"
    );
    assert!(args.ends_with("/main.swift"), "{args}");
    assert!(log.contains(&format!("clang_cache={}", cache.display())), "{log}");
    assert!(cache.is_dir(), "the module cache is created");

    let private = standin.private_dir();
    assert_eq!(reader.directory().as_deref(), Some(private.as_path()));
    let mode = std::fs::metadata(&private).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    assert_eq!(std::fs::read_to_string(private.join("main.swift")).unwrap(), compile::SOURCE);
    assert!(private.join(compile::HELPER_NAME).is_file());

    // The compiled helper is reused: two queries, one compile.
    for pids in [[Pid(11), Pid(12)], [Pid(13), Pid(14)]] {
        let got = reader.query(&pids, &Cancel::new()).unwrap();
        assert_eq!(got, vec![(pids[0], Reading::Error(ReadError::Gone)), (pids[1], Reading::Error(ReadError::Gone))]);
    }
    assert_eq!(standin.log().lines().filter(|l| l.starts_with("args:")).count(), 1);

    reader.close();
    assert!(!private.exists(), "the private directory is removed on close");
    assert!(cache.is_dir(), "the module cache is never removed");
    assert!(matches!(reader.query(&[Pid(1)], &Cancel::new()), Err(QueryError::Closed)));
    reader.close(); // idempotent
}

#[test]
fn without_a_module_cache_nothing_is_passed_or_exported() {
    let s = StandIn::new(SUCCESS);
    let reader = TokenReader::open(&s.settings(120_000, None)).unwrap();
    let log = s.log();
    assert!(!log.contains("-module-cache-path"), "{log}");
    assert!(log.contains("clang_cache=unset"), "{log}");
    reader.close();
}

#[test]
fn xcrun_is_the_default_compiler() {
    let settings = CompileSettings { compiler: Compiler::Xcrun, module_cache: None, timeout_ms: 1 };
    let (program, args) = compile::command_line(&settings, Path::new("/p/main.swift"), Path::new("/p/out"));
    assert_eq!(program, PathBuf::from("xcrun"));
    let args: Vec<OsString> = args;
    assert_eq!(args, ["swiftc", "-O", "-o", "/p/out", "/p/main.swift"].map(OsString::from));
}

#[test]
fn a_failing_compiler_reports_its_diagnostics_cut_at_512_bytes_and_leaves_nothing() {
    // 600 bytes of 'x' then a marker that must not survive the cut.
    let s = StandIn::new("head -c 600 /dev/zero | tr '\\0' x >&2; echo TAIL-MARKER >&2; exit 1");
    let err = TokenReader::open(&s.settings(120_000, None)).unwrap_err();
    let CompileError::Failed { diagnostics, cut, status } = &err else { panic!("{err}") };
    assert_eq!(diagnostics.len(), 512);
    assert!(diagnostics.bytes().all(|b| b == b'x'));
    assert_eq!(*cut, " (cut at 512 bytes)");
    assert!(status.contains('1'), "{status}");
    let text = err.to_string();
    assert!(!text.contains("TAIL-MARKER") && text.contains("cut at 512 bytes"), "{text}");
    assert!(!s.private_dir().exists(), "a failed compile leaves no private directory");

    let short = StandIn::new("echo 'error: no such module Darwin' >&2; exit 1");
    let err = TokenReader::open(&short.settings(120_000, None)).unwrap_err();
    assert!(err.to_string().ends_with("its diagnostics: error: no such module Darwin"), "{err}");
}

#[test]
fn diagnostics_are_cut_on_a_character_boundary() {
    let mut bytes = vec![b'a'; 511];
    bytes.extend_from_slice("é and more".as_bytes());
    let (text, cut) = compile::cut_diagnostics(&bytes);
    assert!(cut);
    assert_eq!(text, "a".repeat(511));
    assert_eq!(compile::cut_diagnostics(b"short\n"), ("short".to_owned(), false));
}

#[test]
fn a_compiler_that_exits_0_without_output_is_an_error() {
    let s = StandIn::new("exit 0");
    let err = TokenReader::open(&s.settings(120_000, None)).unwrap_err();
    assert!(matches!(err, CompileError::NoOutput(_)), "{err}");
}

#[test]
fn a_hung_compiler_is_killed_with_its_process_group_and_the_error_names_the_ms() {
    let s = StandIn::new(r#"sleep 300 & echo $! > "$helper.pids"; sleep 300"#);
    let pids = s.path("helper.sh.pids");
    let started = Instant::now();
    let err = TokenReader::open(&s.settings(300, None)).unwrap_err();
    assert!(matches!(err, CompileError::Timeout { timeout_ms: 300 }), "{err}");
    assert!(err.to_string().contains("within 300 ms"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(30), "the kill did not wait for the sleeps");
    // The compiler's own child (same process group) was killed too.
    let grandchild: i32 = std::fs::read_to_string(&pids).unwrap().trim().parse().unwrap();
    let pid = rustix::process::Pid::from_raw(grandchild).unwrap();
    wait_for("the compiler's child to die", Duration::from_secs(20), || {
        let stat = std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap_or_default();
        rustix::process::test_kill_process(pid).is_err() || stat.contains(") Z ")
    });
    assert!(!s.private_dir().exists());
}

#[test]
fn a_missing_compiler_is_an_actionable_launch_error() {
    let s = StandIn::new("");
    let settings = CompileSettings {
        compiler: Compiler::Direct { swiftc: s.path("not-there"), sdk: s.path("sdk") },
        module_cache: None,
        timeout_ms: 1000,
    };
    let err = TokenReader::open(&settings).unwrap_err();
    assert!(matches!(err, CompileError::Launch { .. }), "{err}");
    assert!(err.to_string().contains("xcode-select --install"), "{err}");
}

#[test]
fn an_uncreatable_module_cache_is_reported() {
    let s = StandIn::new("exit 0");
    std::fs::write(s.path("file"), "").unwrap();
    let err = TokenReader::open(&s.settings(1000, Some(s.path("file/cache")))).unwrap_err();
    assert!(matches!(err, CompileError::ModuleCache { .. }), "{err}");
    assert!(err.to_string().contains("REA_DARWIN_MODULE_CACHE_PATH"));
}

#[test]
fn bad_values_of_each_variable_fail_before_any_compile() {
    let s = StandIn::new("exit 0");
    let swiftc = s.path("swiftc").into_os_string();
    let sdk = s.path("sdk").into_os_string();
    let cases: Vec<(Vec<(&str, OsString)>, &str)> = vec![
        (vec![(config::COMPILE_TIMEOUT_MS, "0".into())], "REA_SWIFTC_COMPILE_TIMEOUT_MS=\"0\""),
        (vec![(config::COMPILE_TIMEOUT_MS, "2147483648".into())], "1 to 2147483647"),
        (vec![(config::SWIFTC_PATH, "swiftc".into()), (config::SDKROOT, sdk.clone())], "relative path"),
        (vec![(config::SWIFTC_PATH, s.path("none").into()), (config::SDKROOT, sdk.clone())], "does not exist"),
        (vec![(config::SWIFTC_PATH, swiftc.clone())], "SDKROOT is not"),
        (vec![(config::SWIFTC_PATH, swiftc.clone()), (config::SDKROOT, "sdk".into())], "SDKROOT=\"sdk\" is a relative"),
        (vec![(config::SWIFTC_PATH, swiftc), (config::SDKROOT, s.path("nosdk").into())], "SDKROOT="),
        (vec![(config::MODULE_CACHE_PATH, "cache".into())], "REA_DARWIN_MODULE_CACHE_PATH=\"cache\""),
    ];
    for (vars, expected) in cases {
        let err = config::from_env(|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone())).unwrap_err();
        assert!(err.to_string().contains(expected), "{vars:?}: {err}");
    }
    assert!(s.log().is_empty(), "no compiler ran");
}

/// A reader over a stand-in helper that signals it started and then waits
/// for a `go` file.
fn gated_reader() -> (tempfile::TempDir, TokenReader, PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let dir = PrivateDir::new().unwrap();
    let helper = dir.path().join("rea-token-reader");
    let script = format!(
        "#!/bin/sh\necho $$ > '{started}'\nwhile [ ! -e '{go}' ]; do sleep 0.01; done\n{rest}",
        started = work.path().join("started").display(),
        go = work.path().join("go").display(),
        rest = ANSWERING_HELPER.trim_start_matches("#!/bin/sh\n"),
    );
    write_script(&helper, &script);
    let path = dir.path().to_owned();
    (work, TokenReader::with_helper(dir, helper), path)
}

#[test]
fn closing_rejects_new_queries_and_waits_for_the_admitted_one_before_removing_the_directory() {
    let (work, reader, private) = gated_reader();
    let querying = {
        let reader = reader.clone();
        std::thread::spawn(move || reader.query(&[Pid(5)], &Cancel::new()))
    };
    wait_for("the helper to start", Duration::from_secs(20), || work.path().join("started").exists());
    assert_eq!(reader.admitted(), 1);

    let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let closing = {
        let (reader, closed) = (reader.clone(), closed.clone());
        std::thread::spawn(move || {
            reader.close();
            closed.store(true, std::sync::atomic::Ordering::SeqCst);
        })
    };
    // Once closing, new queries are rejected without running anything.
    wait_for("close to begin", Duration::from_secs(20), || reader.is_closing());
    assert!(matches!(reader.query(&[Pid(6)], &Cancel::new()), Err(QueryError::Closed)));
    assert!(!closed.load(std::sync::atomic::Ordering::SeqCst), "close waits for the admitted query");
    assert!(private.exists(), "the directory stays while a query is admitted");

    std::fs::write(work.path().join("go"), "").unwrap();
    let answer = querying.join().unwrap().unwrap();
    assert_eq!(answer, vec![(Pid(5), Reading::Error(ReadError::Gone))]);
    closing.join().unwrap();
    assert!(closed.load(std::sync::atomic::Ordering::SeqCst));
    assert!(!private.exists(), "the directory is removed after the admitted query finished");
}

#[test]
fn cancelling_a_query_returns_only_after_its_helper_exited() {
    let (work, reader, _private) = gated_reader();
    let cancel = Cancel::new();
    let querying = {
        let (reader, cancel) = (reader.clone(), cancel.clone());
        std::thread::spawn(move || reader.query(&[Pid(5)], &cancel))
    };
    let started = work.path().join("started");
    wait_for("the helper to start", Duration::from_secs(20), || {
        std::fs::read_to_string(&started).is_ok_and(|t| t.ends_with('\n'))
    });
    let helper: i32 = std::fs::read_to_string(&started).unwrap().trim().parse().unwrap();
    cancel.cancel();
    assert!(matches!(querying.join().unwrap(), Err(QueryError::Cancelled)));
    // Killed and reaped by the query before it returned: /proc no longer
    // shows it (a PID reused this fast by another shell is not expected).
    let gone =
        std::fs::read_to_string(format!("/proc/{helper}/stat")).map(|stat| !stat.contains("(sh)")).unwrap_or(true);
    assert!(gone, "the helper was still running or unreaped after the cancelled query returned");
    assert_eq!(reader.admitted(), 0);
    reader.close();
}

#[test]
fn a_helper_that_fails_or_breaks_the_protocol_is_an_error() {
    let dir = PrivateDir::new().unwrap();
    let failing = dir.path().join("failing");
    write_script(&failing, "#!/bin/sh\necho 'dyld: missing symbol'\nexit 6\n");
    let broken = dir.path().join("broken");
    write_script(&broken, "#!/bin/sh\necho 'rea-token-reader 1'\necho 'error 5 gone'\n");
    let reader = TokenReader::with_helper(dir, failing);
    let err = reader.query(&[Pid(5)], &Cancel::new()).unwrap_err();
    assert!(err.to_string().contains("dyld: missing symbol"), "{err}");
    let dir2 = PrivateDir::new().unwrap();
    let broken2 = dir2.path().join("broken");
    std::fs::copy(&broken, &broken2).unwrap();
    let reader2 = TokenReader::with_helper(dir2, broken2);
    assert!(matches!(reader2.query(&[Pid(5)], &Cancel::new()), Err(QueryError::Protocol(_))));
    reader.close();
    reader2.close();
}

#[test]
fn a_helper_that_does_not_answer_in_time_is_stopped() {
    let (work, reader, _private) = gated_reader();
    let reader = reader.with_query_timeout(Duration::from_millis(200));
    let err = reader.query(&[Pid(5)], &Cancel::new()).unwrap_err();
    assert!(matches!(err, QueryError::TimedOut(200)), "{err}");
    assert!(err.to_string().contains("200 ms"));
    assert!(work.path().join("started").exists(), "the helper ran");
    assert_eq!(reader.admitted(), 0);
    reader.close();
}
