// The shared behaviour of an in-place text editor (a trust anchor, an agent's file): Ctrl/⌘+S
// saves and Esc cancels; a refused save shows its error above the text, which keeps the focus.
// Each view keeps its own save, cancel and layout.

export function bindEditorKeys(text, { save, cancel }) {
  text.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') { e.preventDefault(); save(); }
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); cancel(); }
  });
}

export function showSaveError(error, e, text) {
  error.hidden = false;
  error.dataset.code = e.code;
  error.textContent = e.message;
  text.focus();
}
