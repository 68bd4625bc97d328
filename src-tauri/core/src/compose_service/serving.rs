//! The serving loop and the handle the app shell and `ambry serve` hold.
//!
//! Owns: accepting connections, each read on its own thread under one deadline for the whole
//! request (so a client that trickles bytes holds only its own thread, never the service),
//! answering compose and status one at a time on the serving thread (a compose takes
//! milliseconds) and recalls one at a time on a thread of their own (a recall indexes new
//! transcript lines first, which after a busy day takes seconds: an agent's hook turn must not
//! wait behind it), turning a panic inside one call into an error reply instead of a dead
//! service, and stopping on request.
//! Deliberately does not: choose the models directory or install signal handlers (callers do).

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::protocol::{parse_request, Call, Reply, Request, Response};
use super::socket::{bind, read_request_line_by};
use super::{ComposeService, Refusal, ServiceError};
use crate::{AmbryHome, Workspace};

/// How long a connected client may take to send its whole request line (and to take the answer).
const CLIENT_DEADLINE: Duration = Duration::from_secs(5);

/// Connections read at once; more are closed at once (their clients compose in-process).
const MAX_CONNECTIONS: usize = 64;

/// A request read from one connection, and where its answer goes.
struct Pending {
    line: Result<String, String>,
    answer: Sender<Response>,
}

/// Answers connections on `listener` until `stop` is set (and a connection wakes the loop).
pub fn serve(listener: &UnixListener, service: &ComposeService, stop: &AtomicBool) {
    let (requests, incoming) = channel::<Pending>();
    let open = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let open = &open;
        scope.spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                match stream {
                    Ok(stream) if open.load(Ordering::SeqCst) >= MAX_CONNECTIONS => {
                        tracing::warn!("compose service: {MAX_CONNECTIONS} connections open; closing a new one");
                        drop(stream);
                    }
                    Ok(stream) => {
                        open.fetch_add(1, Ordering::SeqCst);
                        let requests = requests.clone();
                        scope.spawn(move || {
                            connection(stream, &requests);
                            open.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    Err(e) => {
                        tracing::warn!("compose service: accept failed: {e}");
                        // Out of file descriptors and similar: do not spin.
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
            }
            // Dropping `requests` here (and in each finished connection) ends the loop below.
        });
        let (recalls, recall_queue) = channel::<(Request, Sender<Response>)>();
        scope.spawn(move || {
            for (request, answer) in recall_queue {
                let _ = answer.send(answered(service, request));
            }
        });
        for pending in incoming {
            let request = match pending.line.map(|line| parse_request(&line)) {
                Ok(Ok(request)) => request,
                Ok(Err(e)) => {
                    let _ = pending.answer.send(Response::new(Reply::Error(e)));
                    continue;
                }
                Err(why) => {
                    let _ = pending
                        .answer
                        .send(Response::refused(&Refusal::MalformedRequest { why }));
                    continue;
                }
            };
            if matches!(request.call, Call::Recall(_)) {
                let _ = recalls.send((request, pending.answer));
            } else {
                let _ = pending.answer.send(answered(service, request));
            }
        }
        // The connections are done: the recall thread ends once it has answered its queue.
        drop(recalls);
    });
}

/// `request` answered, a panic inside it turned into an error reply.
fn answered(service: &ComposeService, request: Request) -> Response {
    let started = Instant::now();
    let response = catch_unwind(AssertUnwindSafe(|| service.handle(request)))
        .unwrap_or_else(|_| Response::refused(&Refusal::Internal));
    tracing::debug!("compose service: answered in {:?}", started.elapsed());
    response
}

/// One client: its request read by the deadline, handed to the serving thread, the answer written.
fn connection(mut stream: UnixStream, requests: &Sender<Pending>) {
    let deadline = Instant::now() + CLIENT_DEADLINE;
    let line = match read_request_line_by(&stream, deadline) {
        Ok(line) => line,
        Err(e) => {
            tracing::debug!("compose service: client went away or was too slow: {e}");
            return;
        }
    };
    let (answer, answered) = channel();
    if requests.send(Pending { line, answer }).is_err() {
        return;
    }
    let Ok(response) = answered.recv() else {
        return;
    };
    let _ = stream.set_write_timeout(Some(
        deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(100)),
    ));
    if let Err(e) = stream.write_all(response.to_line().as_bytes()) {
        tracing::debug!("compose service: client went away before the answer: {e}");
    }
}

/// A running compose service on its own thread. Dropping it stops the thread and removes the
/// socket.
#[derive(Debug)]
pub struct ServiceHandle {
    socket: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ServiceHandle {
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// False once the serving thread has ended (it only ends when stopped, or on a panic
    /// outside any single call).
    pub fn is_running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Stops serving and waits for the thread; the socket is gone when this returns.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let Some(thread) = self.thread.take() else {
            return;
        };
        // The loop is blocked in accept: one connection wakes it to see the flag. If the socket
        // file was deleted behind our back nothing can wake it; leave the thread to the process.
        if UnixStream::connect(&self.socket).is_ok() || thread.is_finished() {
            let _ = thread.join();
        }
    }
}

impl Drop for ServiceHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Claims the workspace's socket, then serves compose calls on a new thread through that
/// workspace (so the app's window and its agents share one corpus, one vector cache, one
/// model). Returns once the socket accepts connections; the caches warm up on the serving
/// thread (early clients wait in the backlog meanwhile).
pub fn spawn_compose_service(workspace: Arc<Workspace>) -> Result<ServiceHandle, ServiceError> {
    let home = AmbryHome::new(
        std::path::absolute(workspace.home().root()).map_err(|source| ServiceError::Io {
            action: "resolve",
            path: workspace.home().root().into(),
            source,
        })?,
    );
    let socket = bind(&home)?;
    let path = socket.path().to_path_buf();
    let stop = Arc::new(AtomicBool::new(false));
    let thread_stop = stop.clone();
    let thread = std::thread::Builder::new()
        .name("ambry-compose-service".into())
        .spawn(move || {
            let service = ComposeService::new(workspace);
            if !thread_stop.load(Ordering::SeqCst) {
                service.warm_up();
            }
            serve(socket.listener(), &service, &thread_stop);
            drop(socket);
        })
        .map_err(|source| ServiceError::Io {
            action: "start a thread for",
            path: path.clone(),
            source,
        })?;
    Ok(ServiceHandle {
        socket: path,
        stop,
        thread: Some(thread),
    })
}
