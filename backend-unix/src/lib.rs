//! What the Unix backends of rea (`backend-linux`, `backend-macos`) do the
//! same way:
//!
//! - [`terminal`]: a `posix_openpt` master/slave pair with the reference
//!   implementation's terminal settings and the scenario's size;
//! - [`fs`]: [`fs::UnixFs`], the filesystem probe over portable POSIX calls,
//!   and the metadata and file pieces the Linux probe shares with it;
//! - [`map`]: large input files mapped instead of read;
//! - [`stdio`]: whether stdout was open when `rea` started;
//! - [`person`]: the person's terminal while `rea record-scenario` bridges it.
//!
//! Only the engine's traits and types cross this crate's boundary.
#![cfg(unix)]

pub mod fs;
pub mod map;
pub mod person;
pub mod stdio;
pub mod terminal;
