// Settings: the effective configuration (read-only; edit config.toml) and the `engram doctor`
// checks.
//
// data-testid:
//   settings-view     the view          settings-home      ENGRAM_HOME path
//   settings-config   effective config  settings-config-error  config.toml does not load
//   settings-status   overall doctor status (data-status = ok | warn | error)
//   doctor-check      one check (data-area, data-status)

import { call } from './api.js';
import { h, clear } from './dom.js';
import { agentsCard } from './agents.js';

const STATUS_LABEL = { ok: 'OK', warn: 'Warning', error: 'Problem' };

export function createSettingsView() {
  const el = h('section', { class: 'view settings-view', testid: 'settings-view' });

  function configTable(config) {
    const sections = Object.entries(config).map(([section, values]) => h('div', { class: 'config-section' },
      h('h3', { class: 'mono' }, `[${section}]`),
      h('table', { class: 'table' }, h('tbody', {}, Object.entries(values).map(([k, v]) => h('tr', {},
        h('td', { class: 'mono key' }, k),
        h('td', { class: 'mono' }, typeof v === 'string' ? (v === '' ? '""' : `"${v}"`) : JSON.stringify(v))))))));
    return h('div', { class: 'config-grid', testid: 'settings-config' }, sections);
  }

  async function load() {
    clear(el, h('header', { class: 'view-header' }, h('div', { class: 'view-titles' }, h('h1', {}, 'Settings'))));
    let s;
    try {
      s = await call('get_settings');
    } catch (e) {
      el.append(h('div', { class: 'view-body' }, h('div', { class: 'error-box' }, e.message)));
      return;
    }
    const config = 'Ok' in s.config ? s.config.Ok : null;
    const configError = 'Err' in s.config ? s.config.Err : null;
    clear(el,
      h('header', { class: 'view-header' },
        h('div', { class: 'view-titles' }, h('h1', {}, 'Settings'), h('span', { class: 'subtitle' }, `Engram ${s.version} · read-only here: edit config.toml, changes apply right away`))),
      h('div', { class: 'view-body scroll settings-body' },
        h('div', { class: 'card' },
          h('h2', {}, 'Locations'),
          h('dl', { class: 'kv' },
            h('dt', {}, 'Home'), h('dd', { class: 'mono', testid: 'settings-home' }, s.home),
            h('dt', {}, 'Config file'), h('dd', { class: 'mono' }, s.config_file, s.config_exists ? '' : h('span', { class: 'muted' }, '  (not created: all defaults)')))),
        agentsCard({ onChange: load }).el,
        h('div', { class: 'card' },
          h('h2', {}, 'Health ', h('span', { class: `status-pill status-${s.status}`, testid: 'settings-status', dataset: { status: s.status } }, STATUS_LABEL[s.status])),
          h('ul', { class: 'checks' }, s.checks.map((c) => h('li', { class: `check check-${c.status}`, testid: 'doctor-check', dataset: { area: c.area, status: c.status } },
            h('span', { class: 'check-dot', 'aria-label': STATUS_LABEL[c.status] }),
            h('span', { class: 'check-area' }, c.area),
            h('span', { class: 'check-detail' }, c.detail))))),
        h('div', { class: 'card' },
          h('h2', {}, 'Effective configuration'),
          configError ? h('div', { class: 'error-box', testid: 'settings-config-error' }, configError) : configTable(config))));
  }

  return { el, show: load };
}
