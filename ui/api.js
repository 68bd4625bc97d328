// IPC with the shell: every call goes through `call`, which turns a rejected command into an
// Error carrying the shell's stable `code` (see src-tauri/ipc_error.rs).

const tauri = window.__TAURI__;

export class CommandError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * Runs a shell command with the arguments it takes (ui/ipc.d.ts, generated from the Rust
 * signatures; tsc checks every call against it).
 * @template {keyof import('./ipc').CommandArgs} K
 * @param {K} command
 * @param {import('./ipc').CommandArgs[K]} [args]
 * @returns {Promise<any>}
 */
export async function call(command, args) {
  if (!tauri) throw new CommandError('no_shell', 'The Ambry shell is not available.');
  try {
    return await tauri.core.invoke(command, args ?? {});
  } catch (e) {
    if (e && typeof e === 'object' && 'code' in e) throw new CommandError(e.code, e.message);
    throw new CommandError('internal', String(e));
  }
}

export function on(event, handler) {
  if (!tauri) return () => {};
  let unlisten = null;
  tauri.event.listen(event, (e) => handler(e.payload)).then((u) => { unlisten = u; });
  return () => unlisten && unlisten();
}

// Memory references as the shell names them: scope + project slug + name, never a path.
export function locationKey(loc) {
  return loc.scope === 'user' ? 'user' : `${loc.scope}:${loc.project}`;
}

export function sameLocation(a, b) {
  return !!a && !!b && locationKey(a) === locationKey(b);
}

// A name for one run of the person's agent (distill, annotate, ask), sent when it starts and
// with its Stop, so the Stop reaches that run and no other going at the same time.
export function agentRunName() {
  return `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}
