//! The regular expressions of `wait_for`, compiled the one way validation
//! and capture both use, so a scenario that validates is one whose
//! conditions the capture can match.
//!
//! Both are linear in the text they read (the `regex` crate's engines), and
//! bounded in size. `screen_matches` runs on the screen's text, a bounded
//! string, with the `regex` crate. `output_matches` reads a stream of any
//! length, so it runs as a lazy DFA fed chunk by chunk (each byte is read
//! once) and asks at the end of each chunk whether a match ends there: the
//! answer the `regex` crate would give on all the output so far.

use regex_automata::hybrid::dfa::DFA;
use regex_automata::util::syntax;

/// Most bytes a compiled expression may take (the NFA or the regex).
const SIZE_LIMIT: usize = 1 << 20;
/// Memory of the lazy DFA's state cache for `output_matches`.
const DFA_CACHE: usize = 2 << 20;

/// Compiles `screen_matches`: multi-line and CRLF modes on.
pub fn screen_regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .multi_line(true)
        .crlf(true)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| one_line(&e.to_string()))
}

/// Compiles `output_matches` for streaming: multi-line and CRLF modes on.
/// A Unicode word boundary (`\b` with Unicode on) cannot be decided on a
/// stream by a DFA; the error says to use the ASCII form.
pub fn output_dfa(pattern: &str) -> Result<DFA, String> {
    // Same syntax as the `regex` crate (so an expression that is invalid
    // there is invalid here with the same message).
    screen_regex(pattern)?;
    let syntax = syntax::Config::new().multi_line(true).crlf(true);
    let thompson = regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(SIZE_LIMIT));
    DFA::builder()
        .syntax(syntax)
        .thompson(thompson)
        .configure(DFA::config().cache_capacity(DFA_CACHE).skip_cache_capacity_check(true))
        .build(pattern)
        .map_err(|e| {
            let text = e.to_string();
            if text.contains("word boundar") {
                "a Unicode word boundary (\\b or \\B) cannot be matched on a stream of output; use (?-u:\\b) for an ASCII word boundary, or screen_matches".into()
            } else {
                one_line(&text)
            }
        })
}

/// A compiler message on one line (the `regex` crate draws a caret under
/// the pattern over several lines).
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(|l| l.trim().trim_end_matches(':'))
        .filter(|l| !l.is_empty() && !l.starts_with('^'))
        .collect();
    lines.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_expressions_say_why_on_one_line() {
        let e = screen_regex("a(b").unwrap_err();
        assert!(e.contains("unclosed group") && !e.contains('\n'), "{e}");
        let e = output_dfa("a(b").unwrap_err();
        assert!(e.contains("unclosed group"), "{e}");
        let e = output_dfa(r"\bword\b").unwrap_err();
        assert!(e.contains("(?-u:\\b)"), "{e}");
        assert!(output_dfa(r"(?-u:\b)word(?-u:\b)").is_ok());
        assert!(screen_regex(r"\bword\b").is_ok());
    }

    #[test]
    fn an_expression_over_the_size_bound_is_refused() {
        let e = screen_regex(r"\w{1000}\w{1000}").unwrap_err();
        assert!(e.contains("size limit"), "{e}");
    }
}
