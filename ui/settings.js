// Settings: where things are (home, config.toml, the transcript folders read), every key of
// config.toml as a labelled control that writes the file back (comments kept; the change
// applies at once), a way to open (or create) config.toml in the editor, start at login, and
// the `ambry doctor` checks with the Reindex they may call for. A change of config.toml on disk
// (a setting saved here, an edit by hand or by the CLI) shows at once (`refreshFromDisk`): the
// header's Create/Open, the fields (except the one being typed in), a file that stopped or
// started loading. The health checks follow what they report on: sessions indexed, a reindex
// finished, an agent connected (`refreshHealth`).
//
// data-testid:
//   settings-view     the view          settings-home      AMBRY_HOME path
//   settings-open-config  open config.toml in the editor (creates it, all defaults, when missing)
//   settings-config   the configuration form (see setting-field.js)  settings-config-error  config.toml does not load
//   settings-config-card  the card holding either     settings-config-missing  "(not created: all defaults)"
//   settings-autostart    start at login (tray only) checkbox
//   settings-session-folder  a transcript folder read (data-source, data-exists)
//   settings-reindex  Reindex button    settings-status   overall doctor status (data-status = ok | warn | error)
//   settings-health   the health card   doctor-check      one check (data-area, data-status = ok | off | info | warn | error;
//                                                          its label is unique in the list)
//   doctor-review-secrets  on the secret check: opens the Archive, where each leaked copy can be purged

import { call } from './api.js';
import { h, clear } from './dom.js';
import { toast, errorToast, editorErrorToast } from './dialog.js';
import { agentsCard } from './agents.js';
import { settingField } from './setting-field.js';

// A note (`info`) is worth knowing and needs nothing done: core never lets it raise the overall
// status, so a fresh home with only notes reads OK.
const STATUS_LABEL = { ok: 'OK', off: 'Not set up', info: 'Note', warn: 'Warning', error: 'Problem' };
const SOURCE_LABEL = { claude: 'Claude Code', codex: 'Codex', ambry: 'Ambry' };

// Two checks of one area (the runtime and the model are both "embeddings"; an agent's
// connection, its hooks' trust and its notes) get labels that tell them apart by what they are
// about: the words before "found"/"missing"/"loaded" or before a colon ("SessionStart hook"),
// else "note"; never a bare number.
function checkLabels(checks) {
  const counts = new Map();
  for (const c of checks) counts.set(c.area, (counts.get(c.area) || 0) + 1);
  const seen = new Map();
  const used = new Set();
  return checks.map((c) => {
    let label = c.area;
    if (counts.get(c.area) > 1) {
      const first = !seen.has(c.area);
      seen.set(c.area, true);
      const what = /^(.{1,40}?) (found|missing|loaded)\b/.exec(c.detail) || /^([^:;,.]{1,30}):/.exec(c.detail);
      label = what ? `${c.area}: ${what[1]}` : first ? c.area : `${c.area}: note`;
    }
    // Unique in the list (tests and screen readers name a check by it).
    let unique = label;
    for (let n = 2; used.has(unique); n += 1) unique = `${label} ${n}`;
    used.add(unique);
    return unique;
  });
}

// A check that a reindex would fix says so with the button rather than a command to type.
function wantsReindex(c) {
  return (c.status === 'warn' || c.status === 'error') && /ambry (sessions index|memory reindex)/.test(c.detail);
}

// The secret check: the Archive view lists each file with a purge for the archived copies.
function holdsSecret(c) {
  return c.status === 'error' && /looks like a secret/.test(c.detail);
}

export function createSettingsView(app) {
  const el = h('section', { class: 'view settings-view', testid: 'settings-view' });

  // The settings grouped as the catalogue orders them (what agents get, search, archive, …).
  function configForm(settings) {
    const groups = new Map();
    for (const s of settings) {
      if (!groups.has(s.group)) groups.set(s.group, []);
      groups.get(s.group).push(s);
    }
    return h('div', { class: 'config-form', testid: 'settings-config' },
      [...groups].map(([group, items]) => h('fieldset', { class: 'config-group' },
        h('legend', {}, group),
        items.map((s) => settingField(s)))));
  }

  async function openConfig() {
    try {
      const [what, created] = await call('open_config');
      toast(created ? `Created config.toml (all defaults) and opened it in ${what}` : `Opened config.toml in ${what}`, 'info', 3500);
      if (created) refreshFromDisk();
    } catch (e) {
      editorErrorToast('Could not open config.toml', e);
    }
  }

  function autostartToggle(enabled) {
    const box = h('input', { type: 'checkbox', testid: 'settings-autostart', id: 'settings-autostart' });
    box.checked = enabled;
    box.addEventListener('change', async () => {
      box.disabled = true;
      try {
        box.checked = await call('set_autostart', { enabled: box.checked });
        toast(box.checked ? 'Ambry will start in the tray when you log in' : 'Ambry will not start at login', 'success', 3000);
      } catch (e) {
        box.checked = !box.checked;
        errorToast('Could not change start at login', e);
      } finally {
        box.disabled = false;
      }
    });
    return h('label', { class: 'toggle', for: 'settings-autostart' }, box,
      h('span', {}, 'Start Ambry at login, in the tray only ', h('span', { class: 'muted' }, '(an entry in ~/.config/autostart)')));
  }

  // The doctor's checks, with the Reindex action. Rebuilt alone when an agent is connected or
  // disconnected (the checks name each agent's connection), so the rest of the view — and the
  // focus on the agent's button — stays where it was.
  function healthCard(s) {
    const labels = checkLabels(s.checks);
    const needsReindex = s.checks.some(wantsReindex);
    return h('div', { class: 'card', testid: 'settings-health' },
      h('h2', {}, 'Health ', h('span', { class: `status-pill status-${s.status}`, testid: 'settings-status', dataset: { status: s.status } }, STATUS_LABEL[s.status]),
        h('span', { class: 'card-actions' }, h('button', { class: 'btn', testid: 'settings-reindex', onClick: () => app.reindex() }, '↻ Reindex'))),
      needsReindex ? h('p', { class: 'note' }, 'Some checks want a reindex: the Reindex button brings embeddings and the session index up to date.') : null,
      h('ul', { class: 'checks' }, s.checks.map((c, i) => h('li', { class: `check check-${c.status}`, testid: 'doctor-check', dataset: { area: c.area, status: c.status } },
        h('span', { class: 'check-dot', testid: 'check-dot', role: 'img', 'aria-label': STATUS_LABEL[c.status], title: STATUS_LABEL[c.status] }),
        h('span', { class: 'check-area' }, labels[i]),
        h('span', { class: 'check-detail' }, c.detail,
          holdsSecret(c) ? h('button', { class: 'btn btn-small check-action', testid: 'doctor-review-secrets', onClick: () => app.navigate({ view: 'archive' }, { location: { scope: 'user', project: null } }) }, 'Review and purge in the Archive') : null)))));
  }

  // The checks read again (an agent connected, sessions indexed, a reindex done): the card is
  // replaced, and focus inside it stays on the same control. The newest read wins.
  let healthSeq = 0;
  async function refreshHealth() {
    if (!el.querySelector('[data-testid="settings-health"]')) return;
    const mine = ++healthSeq;
    let s;
    try {
      s = await call('get_settings');
    } catch (e) {
      errorToast('Could not refresh the health checks', e);
      return;
    }
    const current = el.querySelector('[data-testid="settings-health"]');
    if (mine !== healthSeq || !current) return;
    const focused = current.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement).dataset.testid : null;
    const fresh = healthCard(s);
    current.replaceWith(fresh);
    const again = focused ? /** @type {HTMLElement|null} */ (fresh.querySelector(`[data-testid="${focused}"]`)) : null;
    if (again) again.focus();
  }

  async function load() {
    clear(el, h('header', { class: 'view-header' }, h('div', { class: 'view-titles' }, h('h1', {}, 'Settings'))));
    let s;
    let autostart = false;
    try {
      [s, autostart] = await Promise.all([call('get_settings'), call('get_autostart').catch(() => false)]);
    } catch (e) {
      el.append(h('div', { class: 'view-body' }, h('div', { class: 'error-box' }, e.message)));
      return;
    }
    clear(el,
      h('header', { class: 'view-header' },
        h('div', { class: 'view-titles' }, h('h1', {}, 'Settings'), h('span', { class: 'subtitle' }, `Ambry ${s.version} · changes to config.toml apply right away`)),
        h('div', { class: 'view-actions' },
          h('button', { class: 'btn btn-primary', testid: 'settings-open-config', onClick: openConfig }, s.config_exists ? 'Open config.toml' : 'Create config.toml'))),
      h('div', { class: 'view-body scroll settings-body' },
        h('div', { class: 'card' },
          h('h2', {}, 'Locations'),
          h('dl', { class: 'kv' },
            h('dt', {}, 'Home'), h('dd', { class: 'mono', testid: 'settings-home' }, s.home),
            h('dt', {}, 'Config file'), h('dd', { class: 'mono' }, s.config_file, h('span', { class: 'muted', testid: 'settings-config-missing', hidden: s.config_exists }, '  (not created: all defaults)')),
            (s.session_folders || []).map((f) => [
              h('dt', {}, `${SOURCE_LABEL[f.source] || f.source} transcripts`),
              h('dd', { class: 'mono', testid: 'settings-session-folder', dataset: { source: f.source, exists: f.exists ? 'true' : 'false' } },
                f.path || '(unknown: no home folder)', f.path && !f.exists ? h('span', { class: 'muted' }, '  (not there yet)') : ''),
            ]))),
        agentsCard({ onChange: refreshHealth }).el,
        h('div', { class: 'card' },
          h('h2', {}, 'Desktop'),
          autostartToggle(autostart)),
        healthCard(s),
        configCard(s)));
  }

  function configCard(s) {
    const configError = 'Err' in s.config ? s.config.Err.message : null;
    return h('div', { class: 'card', testid: 'settings-config-card', dataset: { error: configError || '' } },
      h('h2', {}, 'Configuration'),
      h('p', { class: 'muted' }, 'Changes are written to config.toml (your comments stay) and apply right away.'),
      configError ? h('div', { class: 'error-box', testid: 'settings-config-error' }, configError) : configForm(s.settings || []));
  }

  // config.toml changed on disk: what the view shows of it follows, without a reload that
  // would move focus or drop what the person is typing.
  let refreshing = null;
  async function refreshFromDisk() {
    if (!el.isConnected || !el.querySelector('[data-testid="settings-config-card"]')) return;
    const seq = refreshing = {};
    let s;
    try {
      s = await call('get_settings');
    } catch {
      return;
    }
    if (seq !== refreshing || !el.isConnected) return;
    const open = el.querySelector('[data-testid="settings-open-config"]');
    if (open) open.textContent = s.config_exists ? 'Open config.toml' : 'Create config.toml';
    const missing = el.querySelector('[data-testid="settings-config-missing"]');
    if (missing) missing.hidden = s.config_exists;
    const card = el.querySelector('[data-testid="settings-config-card"]');
    const configError = 'Err' in s.config ? s.config.Err.message : '';
    if (card && (card.dataset.error || '') !== configError) {
      if (!card.contains(document.activeElement)) card.replaceWith(configCard(s));
    } else if (card) {
      for (const row of card.querySelectorAll('[data-testid="setting"]')) {
        if (row.showFromDisk) row.showFromDisk((s.settings || []).find((x) => `${x.section}.${x.key}` === row.dataset.key));
      }
    }
    const health = el.querySelector('[data-testid="settings-health"]');
    if (health && !health.contains(document.activeElement)) health.replaceWith(healthCard(s));
  }

  return {
    el,
    show: load,
    openConfig,
    refreshFromDisk,
    refreshHealth,
    focusMain: () => { const b = el.querySelector('[data-testid="settings-open-config"]'); if (b) b.focus(); },
  };
}
