//! How bytes reach the disk safely, for every module that writes a file Ambry owns: atomic
//! replacement (temp file, fsync, rename, fsync of the directory), the refusal to write through
//! a symlink, the private modes of what Ambry creates, sweeping temp files a killed writer left,
//! the scope lock that serializes writers across threads and processes, and the directory stamp
//! that tells a cache whether any such write happened.
//!
//! Owns: those mechanisms. Deliberately does not: know what is being written (memories,
//! project records, anchors, sidecars); its callers do. It imports nothing from them, so the
//! store and the project registry can both use it without depending on each other for it.

mod atomic;
mod dir_stamp;
mod lock;
mod private;

pub use atomic::{
    refuse_symlink, sweep_stale_temps, sync_dir, write_atomic, write_atomic_with_mode, TEMP_PREFIX,
};
pub use dir_stamp::DirStamp;
pub use lock::{read_holder, record_holder};
pub use lock::{LockFailure, ScopeLock, LOCK_FILE, LOCK_WAIT};
pub use private::PRIVATE_DIR_MODE;
pub use private::{create_private_dir_all, make_private, open_private, PRIVATE_FILE_MODE};
