//! The compose service's Unix socket in `AMBRY_HOME`: claiming it for one server, and one
//! request/response exchange for a client.
//!
//! Owns: the single-server rule (an advisory lock on `compose.lock`, held for the server's life,
//! with its pid inside for the "already running" message), replacing a stale socket left by a
//! dead server, the socket's 0600 mode and the home's ownership check, removing the socket on
//! shutdown, and the client's bounded wait for an answer.
//! Deliberately does not: compose or parse beyond the envelope; `service` and `protocol` do.

use std::fs::{File, TryLockError};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::protocol::{parse_response, Reply, Request, MAX_REQUEST_BYTES};
use super::ServiceError;
use ambry_store::home::AmbryHome;

/// A bound, exclusively owned socket. Dropping it removes the socket file (if it is still the
/// one bound here) and releases the lock.
#[derive(Debug)]
pub struct ServiceSocket {
    listener: UnixListener,
    path: PathBuf,
    inode: (u64, u64),
    _lock: File,
}

impl ServiceSocket {
    pub fn listener(&self) -> &UnixListener {
        &self.listener
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ServiceSocket {
    fn drop(&mut self) {
        if let Ok(meta) = std::fs::symlink_metadata(&self.path) {
            if (meta.dev(), meta.ino()) == self.inode {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

/// Claims `home`'s compose socket: fails if another server holds it, replaces a dead one's.
pub fn bind(home: &AmbryHome) -> Result<ServiceSocket, ServiceError> {
    let root = home.root();
    ambry_store::storage::create_private_dir_all(root).map_err(|source| ServiceError::Io {
        action: "create",
        path: root.into(),
        source,
    })?;
    let owner = std::fs::metadata(root)
        .map_err(|source| ServiceError::Io {
            action: "read",
            path: root.into(),
            source,
        })?
        .uid();
    // SAFETY: geteuid has no preconditions and cannot fail.
    if owner != unsafe { libc::geteuid() } {
        return Err(ServiceError::HomeNotOwned { home: root.into() });
    }

    let lock_path = home.compose_service_lock();
    let mut lock = ambry_store::storage::open_private(&lock_path, false).map_err(|source| {
        ServiceError::Io {
            action: "open",
            path: lock_path.clone(),
            source,
        }
    })?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut pid = String::new();
            let _ = lock.read_to_string(&mut pid);
            let pid = if pid.trim().is_empty() {
                "unknown".to_string()
            } else {
                pid.trim().to_string()
            };
            return Err(ServiceError::AlreadyRunning {
                home: root.into(),
                pid,
            });
        }
        Err(TryLockError::Error(source)) => {
            return Err(ServiceError::Io {
                action: "lock",
                path: lock_path,
                source,
            })
        }
    }
    let _ = lock
        .set_len(0)
        .and_then(|_| lock.write_all(std::process::id().to_string().as_bytes()));

    let path = home.compose_socket();
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_socket() => {
            // Holding the lock means no live server of this design owns it; one that still
            // answers is something else, and is left alone.
            if UnixStream::connect(&path).is_ok() {
                return Err(ServiceError::AlreadyRunning {
                    home: root.into(),
                    pid: "unknown".into(),
                });
            }
            std::fs::remove_file(&path).map_err(|source| ServiceError::Io {
                action: "remove the stale socket",
                path: path.clone(),
                source,
            })?;
        }
        Ok(_) => return Err(ServiceError::NotASocket { path }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(ServiceError::Io {
                action: "inspect",
                path,
                source,
            })
        }
    }
    let listener = UnixListener::bind(&path).map_err(|source| ServiceError::Io {
        action: "listen on",
        path: path.clone(),
        source,
    })?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(|source| {
        ServiceError::Io {
            action: "restrict",
            path: path.clone(),
            source,
        }
    })?;
    let meta = std::fs::symlink_metadata(&path).map_err(|source| ServiceError::Io {
        action: "inspect",
        path: path.clone(),
        source,
    })?;
    Ok(ServiceSocket {
        listener,
        path,
        inode: (meta.dev(), meta.ino()),
        _lock: lock,
    })
}

/// Most bytes of an answer the client reads: a composition is a block of at most 8,000 bytes
/// plus its decisions; an endless or runaway answer is cut off here, not buffered.
pub const MAX_RESPONSE_BYTES: usize = 4 << 20;

/// Sends `request` to the service of `home` and gives the whole exchange — connecting,
/// writing, reading the answer, parsing — at most `timeout` in all. Connecting runs on a helper
/// thread because a stopped service with a full backlog blocks `connect` itself; past the
/// deadline the caller moves on (and composes in-process) whatever that thread is doing.
pub fn call(home: &AmbryHome, request: &Request, timeout: Duration) -> Result<Reply, ServiceError> {
    let deadline = Instant::now() + timeout;
    let socket = home.compose_socket();
    let request = request.clone();
    let (answer, answered) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = UnixStream::connect(&socket)
            .map_err(|source| ServiceError::Unreachable {
                socket: socket.clone(),
                source,
            })
            .and_then(|stream| exchange_by(stream, &request, deadline));
        let _ = answer.send(result);
    });
    answered.recv_timeout(timeout).unwrap_or_else(|_| {
        Err(ServiceError::Timeout {
            source: std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no answer within {} ms", timeout.as_millis()),
            ),
        })
    })
}

fn timed_out() -> ServiceError {
    ServiceError::Timeout {
        source: std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the compose service did not answer in time",
        ),
    }
}

fn io_failure(source: std::io::Error) -> ServiceError {
    match source.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            ServiceError::Timeout { source }
        }
        _ => ServiceError::Protocol {
            reason: source.to_string(),
        },
    }
}

/// The time left before `deadline`, or a timeout error when there is none.
fn left(deadline: Instant) -> Result<Duration, ServiceError> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        Err(timed_out())
    } else {
        Ok(left)
    }
}

fn exchange_by(
    mut stream: UnixStream,
    request: &Request,
    deadline: Instant,
) -> Result<Reply, ServiceError> {
    let line = request.to_line();
    let mut unsent = line.as_bytes();
    while !unsent.is_empty() {
        stream
            .set_write_timeout(Some(left(deadline)?))
            .map_err(io_failure)?;
        match stream.write(unsent) {
            Ok(0) => {
                return Err(ServiceError::Protocol {
                    reason: "the service closed the connection before the request was sent".into(),
                })
            }
            Ok(n) => unsent = &unsent[n..],
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(io_failure(e)),
        }
    }
    let mut answer = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        stream
            .set_read_timeout(Some(left(deadline)?))
            .map_err(io_failure)?;
        let n = match stream.read(&mut chunk) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            Err(e) => return Err(io_failure(e)),
        };
        if n == 0 {
            return Err(ServiceError::Protocol {
                reason: "the service closed the connection without a complete answer".into(),
            });
        }
        let end = chunk[..n].iter().position(|&b| b == b'\n').map(|i| i + 1);
        answer.extend_from_slice(&chunk[..end.unwrap_or(n)]);
        if answer.len() > MAX_RESPONSE_BYTES {
            return Err(ServiceError::Protocol {
                reason: format!("the answer is longer than {MAX_RESPONSE_BYTES} bytes"),
            });
        }
        if end.is_some() {
            break;
        }
    }
    let line = String::from_utf8(answer).map_err(|_| ServiceError::Protocol {
        reason: "the answer is not UTF-8".into(),
    })?;
    parse_response(&line)
}

/// Reads one request line from a client, at most `MAX_REQUEST_BYTES`, all of it by `deadline`
/// (a client sending a byte at a time gets no more time than one sending it at once); the inner
/// `Err` says why the bytes are not a request (too long, unterminated, not UTF-8) for the error
/// reply. Running out of time is an `io::Error` of kind `TimedOut`.
pub(super) fn read_request_line_by(
    mut stream: &UnixStream,
    deadline: Instant,
) -> std::io::Result<Result<String, String>> {
    let mut line = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the request did not arrive in time",
            ));
        }
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(&mut chunk) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = chunk[..n].iter().position(|&b| b == b'\n').map(|i| i + 1);
        line.extend_from_slice(&chunk[..end.unwrap_or(n)]);
        if line.len() > MAX_REQUEST_BYTES {
            return Ok(Err(format!(
                "request longer than {MAX_REQUEST_BYTES} bytes"
            )));
        }
        if end.is_some() {
            break;
        }
        if n == 0 {
            return Ok(Err("request line not terminated by a newline".into()));
        }
    }
    Ok(String::from_utf8(line).map_err(|_| "request is not UTF-8".to_string()))
}
