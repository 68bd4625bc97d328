// Opening a memory in the person's editor from the palette or the detail pane, and what
// happens when there is none: with no editor set up (editor.command, $VISUAL, $EDITOR) and no
// desktop application that opens the file, the memory opens in the app's own edit form and a
// notification says so and where to choose an editor. Never an error that leaves the person
// where they were with nothing open.
// Deliberately does not: choose or start the editor (core and the shell do, `open_in_editor`).

import { call } from './api.js';
import { toast, editorErrorToast } from './dialog.js';

// Opens `memory` ({scope, project, name}); `opened(what)` words the success. `leaving` runs
// before the app's own editor takes over (the palette closes itself there).
export async function openMemoryInEditor(app, memory, { opened, leaving = () => {} }) {
  try {
    const what = await call('open_in_editor', { memory });
    toast(opened(what), 'info', 2500);
  } catch (e) {
    if (e.code !== 'no_default_application') {
      editorErrorToast('Could not open the editor', e);
      return;
    }
    leaving();
    await app.editMemory({ scope: memory.scope, project: memory.project || null }, memory.name);
    toast(`No editor is set up and no application here opens Markdown files, so ${memory.name} is open in Ambry’s editor. Choose your editor in Settings → Editor command.`,
      'info', 10000, { details: e.message });
  }
}
