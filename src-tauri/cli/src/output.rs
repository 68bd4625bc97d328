//! Standard output for every command, ending quietly when the reader goes away.
//!
//! Owns: writing to stdout such that `ambry memory list | head -c 10` ends the command with
//! exit 0 at the first broken pipe instead of a panic; any other write failure is an error.
//! Deliberately does not: format anything; `println!`/`print!` in this crate route here.

use std::io::Write;

pub fn write_stdout(args: std::fmt::Arguments<'_>, newline: bool) {
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(e) = written {
        end_of_output(e);
    }
}

/// The reader closed the pipe: nobody wants the rest, which is the normal end of a pipeline.
fn end_of_output(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1);
}
