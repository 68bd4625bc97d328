//! JSON-RPC's parse error for a line that is not JSON.
//!
//! Owns: standing between the client's byte stream and the server: every line that parses as
//! JSON goes on to the server unchanged; one that does not (or is over the line bound) is
//! answered with `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,…}}` (JSON-RPC 2.0 §5.1),
//! written between the server's own answers, never inside one. The SDK drops such a line
//! silently, which leaves a client that sent a request waiting for an answer that never comes.
//! Deliberately does not: judge JSON that parses (the SDK answers a malformed request with
//! `-32600` itself), or answer twice in a row to an echo of its own error (it carries no id, so
//! a client cannot mistake it for a request).

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// A line longer than this is not read whole: it is skipped to its end and answered as a
/// parse error. Far above any real request (a 10 MB recall query fits).
pub const MAX_LINE: u64 = 32 * 1024 * 1024;

const PARSE_ERROR: &str =
    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: the line is not JSON\"}}\n";

/// Relays `input` to the returned reader and the returned writer to `output`, answering
/// unparseable lines on the way. The tasks end when the client hangs up and the server has
/// closed its side.
pub fn guard<R, W>(
    input: R,
    output: W,
) -> (
    tokio::io::DuplexStream,
    tokio::io::DuplexStream,
    tokio::task::JoinHandle<()>,
)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (mut to_server, server_in) = tokio::io::duplex(256 * 1024);
    let (server_out, from_server) = tokio::io::duplex(256 * 1024);
    let (errors, mut pending) = mpsc::unbounded_channel::<()>();
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = match (&mut input)
                .take(MAX_LINE)
                .read_until(b'\n', &mut line)
                .await
            {
                Ok(n) => n,
                Err(_) => break,
            };
            if n == 0 {
                break;
            }
            let too_long = n as u64 >= MAX_LINE && line.last() != Some(&b'\n');
            if too_long {
                // Skip to the end of the line without holding it.
                let mut rest = Vec::new();
                loop {
                    rest.clear();
                    match (&mut input)
                        .take(MAX_LINE)
                        .read_until(b'\n', &mut rest)
                        .await
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) if rest.last() == Some(&b'\n') => break,
                        Ok(_) => {}
                    }
                }
            }
            let blank = line.trim_ascii().is_empty();
            if too_long
                || (!blank && serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_err())
            {
                if errors.send(()).is_err() {
                    break;
                }
                continue;
            }
            if to_server.write_all(&line).await.is_err() {
                break;
            }
        }
        let _ = to_server.shutdown().await;
    });
    let writer = tokio::spawn(async move {
        let mut output = output;
        let mut from_server = BufReader::new(from_server);
        let mut line = Vec::new();
        let mut server_open = true;
        let mut errors_open = true;
        // The server closes its side only once the client has hung up (or it quit): then no
        // more answers are owed but the parse errors already queued.
        while server_open && errors_open {
            tokio::select! {
                read = from_server.read_until(b'\n', &mut line) => match read {
                    Ok(0) | Err(_) => server_open = false,
                    Ok(_) => {
                        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                            return;
                        }
                        line.clear();
                    }
                },
                error = pending.recv() => match error {
                    Some(()) => {
                        if output.write_all(PARSE_ERROR.as_bytes()).await.is_err()
                            || output.flush().await.is_err()
                        {
                            return;
                        }
                    }
                    None => errors_open = false,
                },
            }
        }
        while let Ok(()) = pending.try_recv() {
            let _ = output.write_all(PARSE_ERROR.as_bytes()).await;
        }
        if server_open {
            // The client hung up: the server still answers what it was sent.
            while let Ok(n) = from_server.read_until(b'\n', &mut line).await {
                if n == 0 || output.write_all(&line).await.is_err() {
                    break;
                }
                line.clear();
            }
        }
        // A line the server wrote without its newline is still sent.
        if !line.is_empty() {
            let _ = output.write_all(&line).await;
        }
        let _ = output.flush().await;
    });
    (server_in, server_out, writer)
}
