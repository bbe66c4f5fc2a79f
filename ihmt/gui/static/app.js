/* IHMT GUI — one page, four screens. No framework, no build step, nothing loaded from outside.
   Every string shown to people comes from i18n.js; every value from the memory is inserted as
   text (never as HTML), because leaves hold arbitrary user text. */
(() => {
  'use strict';

  const I18N = window.IHMT_I18N;
  const SVGNS = 'http://www.w3.org/2000/svg';
  const PAGE = 100;
  const FOLDER_PAGE = 200;
  const TABS = ['setup', 'explore', 'diagnose', 'timeline'];

  const state = {
    lang: pickLanguage(),
    token: takeToken(),
    tab: null,
    info: null,
    denied: false,
  };

  // ---------------------------------------------------------------- language
  function pickLanguage() {
    const saved = safeStorage(() => localStorage.getItem('ihmt-lang'));
    if (saved === 'es' || saved === 'en') return saved;
    return (navigator.language || 'en').toLowerCase().startsWith('es') ? 'es' : 'en';
  }

  function safeStorage(fn) {
    try { return fn(); } catch (e) { return null; }
  }

  function t(key, vars) {
    const table = I18N[state.lang] || I18N.en;
    let text = key in table ? table[key] : (key in I18N.en ? I18N.en[key] : key);
    if (vars) text = text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
    return text;
  }

  function tn(key, n, vars) {
    return t(key + (n === 1 ? '.one' : '.other'), Object.assign({ n: num(n) }, vars || {}));
  }

  function num(n) {
    return new Intl.NumberFormat(state.lang).format(n);
  }

  function day(ts) {
    if (!ts) return '';
    const d = new Date(ts);
    if (isNaN(d)) return String(ts).slice(0, 10);
    return new Intl.DateTimeFormat(state.lang, {
      year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC',
    }).format(d);
  }

  function dayRange(a, b) {
    if (!a && !b) return '';
    const x = day(a), y = day(b);
    return !y || x === y ? x : x + ' – ' + y;
  }

  function applyStaticText() {
    document.documentElement.lang = state.lang;
    document.querySelectorAll('[data-i18n]').forEach((el) => { el.textContent = t(el.dataset.i18n); });
    document.querySelectorAll('[data-i18n-placeholder]').forEach((el) => {
      el.placeholder = t(el.dataset.i18nPlaceholder);
    });
    document.querySelectorAll('[data-i18n-title]').forEach((el) => { el.title = t(el.dataset.i18nTitle); });
    document.querySelectorAll('[data-i18n-aria]').forEach((el) => { el.setAttribute('aria-label', t(el.dataset.i18nAria)); });
    document.querySelectorAll('[data-lang]').forEach((el) => {
      el.classList.toggle('active', el.dataset.lang === state.lang);
      el.setAttribute('aria-pressed', String(el.dataset.lang === state.lang));
    });
    document.title = t('app.title');
  }

  function setLanguage(lang) {
    state.lang = lang;
    safeStorage(() => localStorage.setItem('ihmt-lang', lang));
    applyStaticText();
    renderHeader();
    Object.values(views).forEach((v) => v.rendered && v.render());
  }

  // ---------------------------------------------------------------- token and API
  function takeToken() {
    const params = new URLSearchParams(location.search);
    let token = params.get('token');
    if (token) {
      safeStorage(() => sessionStorage.setItem('ihmt-token', token));
      // keep the token out of the address bar, history and screenshots
      history.replaceState(null, '', location.pathname + location.hash);
    } else {
      token = safeStorage(() => sessionStorage.getItem('ihmt-token')) || '';
    }
    return token;
  }

  async function api(path, body) {
    const opts = { headers: { 'X-IHMT-Token': state.token }, cache: 'no-store' };
    if (body !== undefined) {
      opts.method = 'POST';
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(path, opts);
    } catch (e) {
      throw new ApiError('', 0, 'offline');
    }
    let data = {};
    try { data = await resp.json(); } catch (e) { data = {}; }
    if (resp.status === 403 && (data.error || '').includes('token')) {
      state.denied = true;
      showDenied();
    }
    if (!resp.ok) throw new ApiError(data.error || resp.statusText, resp.status, data.code || '', data.params || {});
    return data;
  }

  // An error from the server, worded in the page's language from its code and parameters;
  // the server's English line is shown only in English and only when the code is unknown.
  class ApiError extends Error {
    constructor(english, status, code, params) {
      super();
      this.english = english; this.status = status; this.code = code; this.params = params || {};
    }

    get message() {
      const key = 'err.' + this.code;
      if (this.code && key in I18N.en) return t(key, this.params);
      if (state.lang === 'en' && this.english) return this.english;
      return t('err.http', { status: this.status, code: this.code || '' });
    }
  }

  // ---------------------------------------------------------------- DOM helpers
  function h(tag, attrs, ...kids) {
    const svg = tag.startsWith('svg:');
    const el = svg ? document.createElementNS(SVGNS, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
      else if (k === 'text') el.textContent = v;
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    append(el, kids);
    return el;
  }

  function append(el, kids) {
    for (const kid of kids) {
      if (kid === null || kid === undefined || kid === false) continue;
      if (Array.isArray(kid)) append(el, kid);
      else el.appendChild(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
  }

  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }
  function $(sel) { return document.querySelector(sel); }

  function errorBox(err) {
    return h('div', { class: 'notice error', role: 'alert' }, err.message || String(err));
  }

  function loadingBox() {
    return h('div', { class: 'loading' }, h('span', { class: 'spinner' }), t('common.loading'));
  }

  function toast(message, kind) {
    const box = $('#toast');
    box.textContent = message;
    box.className = 'toast show ' + (kind || '');
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { box.className = 'toast'; }, 2600);
  }

  async function copyText(text) {
    try {
      await navigator.clipboard.writeText(text);
      toast(t('common.copied'), 'ok');
    } catch (e) {
      toast(t('common.copy_failed'), 'warn');
    }
  }

  function codeBlock(text, cls) {
    return h('div', { class: ['code-wrap', cls] },
      h('pre', { class: 'code', tabindex: '0' }, text),
      h('button', { class: 'btn small ghost copy', type: 'button', onclick: () => copyText(text) }, t('common.copy')));
  }

  function shortPath(p) {
    return p && p.length > 48 ? '…' + p.slice(-47) : p || '';
  }

  function branchTitle(ref) {
    const title = ref.title || ref.id;
    const prefix = (ref.domain || '') + ': ';
    return title.startsWith(prefix) ? title.slice(prefix.length) : title;
  }

  function domainHue(name) {
    let hsh = 0;
    for (const ch of name || '') hsh = (hsh * 31 + ch.charCodeAt(0)) % 360;
    return hsh;
  }

  function domainChip(name) {
    const chip = h('span', { class: 'chip domain' }, name);
    chip.style.setProperty('--hue', domainHue(name));
    return chip;
  }

  // ---------------------------------------------------------------- header and tabs
  function renderHeader() {
    const pill = $('#store-pill');
    clear(pill);
    if (!state.info) return;
    pill.title = state.info.store;
    append(pill, [
      h('span', { class: ['dot', state.info.exists ? 'ok' : 'off'] }),
      h('span', { class: 'pill-path' }, shortPath(state.info.workspace)),
    ]);
  }

  function showTab(name) {
    if (!TABS.includes(name)) name = 'explore';
    state.tab = name;
    document.querySelectorAll('[data-tab]').forEach((b) => {
      const on = b.dataset.tab === name;
      b.classList.toggle('active', on);
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;  // one tab stop for the tab list; arrows move inside it
    });
    document.querySelectorAll('.view').forEach((v) => { v.hidden = v.id !== 'view-' + name; });
    if (!routing) setRoute(name === 'timeline' ? timeline.route() : name === 'diagnose' ? diagnose.route() : name === 'explore' ? explore.route() : '#/' + name, false);
    const view = views[name];
    if (!view.loaded) { view.loaded = true; view.load(); } else if (!view.rendered) view.render();
  }

  // ---------------------------------------------------------------- deep links
  // #/memory/<id>, #/search?q=…&clue=…, #/timeline?subject=…, #/explore?q=…, #/<tab>:
  // the address names the view, so a reload or a shared link restores it.
  let routing = false;

  function setRoute(hash, push) {
    if (location.hash === hash) return;
    if (push) history.pushState(null, '', hash); else history.replaceState(null, '', hash);
  }

  function parseRoute(hash) {
    const raw = (hash || '').replace(/^#\/?/, '');
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
    const parts = path.split('/');
    let name = parts[0] || '';
    if (name === 'memory') return { tab: 'explore', memory: decodeURIComponent(parts.slice(1).join('/')) };
    if (name === 'search') return { tab: 'diagnose', q: params.get('q') || '', clue: params.get('clue') || '' };
    if (name === 'timeline') return { tab: 'timeline', subject: params.get('subject') || '' };
    if (name === 'explore') return { tab: 'explore', q: params.get('q') || '' };
    return { tab: TABS.includes(name) ? name : null };
  }

  function applyRoute(fallback) {
    const r = parseRoute(location.hash);
    routing = true;
    try {
      if (r.tab === 'explore') explore.fromRoute(r);
      else if (r.tab === 'diagnose') diagnose.fromRoute(r);
      else if (r.tab === 'timeline') timeline.fromRoute(r);
      showTab(r.tab || fallback);
    } finally {
      routing = false;
    }
    if (!r.tab) setRoute('#/' + state.tab, false);
  }

  function memoryHref(id) {
    return '#/memory/' + encodeURIComponent(id);
  }

  function memoryLink(id, label, cls) {
    return h('a', { class: ['mem-link', cls], href: memoryHref(id), title: id }, label || id);
  }

  // a translated sentence whose {id} placeholder becomes a link to that memory
  function tLinked(key, vars) {
    const out = [];
    const text = t(key, Object.assign({}, vars, { id: '\u0000' }));
    text.split('\u0000').forEach((part, i) => {
      if (i) out.push(memoryLink(vars.id));
      if (part) out.push(part);
    });
    return out;
  }

  function tabKey(e) {
    // the WAI-ARIA tabs pattern: arrows, Home and End move to another tab and show it
    const i = TABS.indexOf(e.currentTarget.dataset.tab);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    const name = TABS[(next + TABS.length) % TABS.length];
    showTab(name);
    $('#tab-' + name).focus();
  }

  function showDenied() {
    const box = $('#denied');
    box.hidden = false;
    clear(box).appendChild(h('div', { class: 'denied-card' },
      h('h2', {}, t('denied.title')),
      h('p', {}, t('denied.body')),
      h('pre', { class: 'code', tabindex: '0' }, 'python3 gui.py')));
  }

  async function refreshInfo() {
    state.info = await api('/api/info');
    renderHeader();
    return state.info;
  }

  function memoryChanged() {
    // another folder became the active memory: every data screen reloads when next shown
    for (const name of ['explore', 'diagnose', 'timeline']) {
      const view = views[name];
      view.reset();
    }
  }

  // ================================================================ Explore
  const explore = {
    loaded: false, rendered: false, overview: null, roots: [], error: null,
    focus: null, focusLeaf: null, focusError: null, query: '', found: null, findError: null, finding: false,
    reset() {
      this.loaded = false; this.rendered = false; this.overview = null; this.roots = []; this.error = null;
      this.focusLeaf = null; this.found = null;
      if (this.focus) this.openMemory(this.focus);
      if (this.query) this.find(this.query);
    },

    route() {
      if (this.focus) return memoryHref(this.focus);
      return this.query ? '#/explore?' + new URLSearchParams({ q: this.query }) : '#/explore';
    },

    fromRoute(r) {
      this.rendered = false;
      if (r.memory) {
        if (r.memory !== this.focus || !this.focusLeaf) this.openMemory(r.memory);
      } else {
        this.focus = null; this.focusLeaf = null; this.focusError = null;
        if ((r.q || '') !== this.query || (r.q && !this.found)) this.find(r.q || '');
      }
    },

    async openMemory(id) {
      this.focus = id; this.focusLeaf = null; this.focusError = null;
      if (!routing && state.tab === 'explore') setRoute(this.route(), true);
      try {
        const leaf = await api('/api/leaf?id=' + encodeURIComponent(id));
        if (this.focus === id) this.focusLeaf = leaf;
      } catch (err) {
        if (this.focus === id) this.focusError = err;
      }
      if (this.loaded && this.focus === id) this.render();
      const card = $('#memory-focus');
      if (card && state.tab === 'explore') card.focus({ preventScroll: false });
    },

    closeMemory() {
      this.focus = null; this.focusLeaf = null; this.focusError = null;
      setRoute(this.route(), true);
      this.render();
    },

    async find(query) {
      this.query = query.trim(); this.found = null; this.findError = null;
      if (!routing && state.tab === 'explore') setRoute(this.route(), true);
      if (!this.query) { if (this.loaded) this.render(); return; }
      const asked = this.query;
      this.finding = true;
      if (this.loaded) this.render();
      try {
        const res = await api('/api/search', { query: asked, top_k: 20 });
        if (asked === this.query) this.found = res;
      } catch (err) {
        if (asked === this.query) this.findError = err;
      }
      this.finding = false;
      if (this.loaded) this.render();
    },

    searchForm() {
      const box = h('input', {
        id: 'explore-query', type: 'search', class: 'input grow', value: this.query,
        placeholder: t('explore.find_ph'), 'aria-label': t('explore.find'), maxlength: '2000', autocomplete: 'off',
      });
      const form = h('form', { class: 'search-bar', id: 'explore-find', role: 'search' }, box,
        h('button', { class: 'btn primary', type: 'submit' }, t('explore.find_go')),
        this.query ? h('button', {
          class: 'btn ghost', type: 'button', id: 'explore-find-clear',
          onclick: () => { this.find(''); },
        }, t('explore.find_clear')) : null);
      form.addEventListener('submit', (e) => { e.preventDefault(); this.focus = null; this.focusLeaf = null; this.find(box.value); });
      return form;
    },

    renderFound() {
      const card = h('div', { class: 'card', id: 'explore-results' });
      if (this.finding) { card.appendChild(loadingBox()); return card; }
      if (this.findError) { card.appendChild(errorBox(this.findError)); return card; }
      const r = this.found;
      if (!r) return null;
      const hits = r.not_found ? [] : r.hits;
      card.appendChild(h('h2', { class: 'sub' }, tn('explore.found', hits.length, { q: this.query })));
      if (!hits.length) card.appendChild(h('p', { class: 'empty' }, t('explore.found_none')));
      else card.appendChild(h('ol', { class: 'hit-list found-list' }, hits.map((hit) => h('li', { class: 'hit' },
        h('div', { class: 'hit-head' },
          domainChip(hit.domain),
          h('span', { class: 'hit-src' }, srcLabel(hit)),
          h('span', { class: 'muted' }, day(hit.timestamp)),
          hit.outdated ? h('span', { class: 'badge outdated' }, t('common.outdated')) : null),
        titleBlock(hit, memoryHref(hit.id))))));
      return card;
    },

    renderFocus() {
      const card = h('section', { class: 'card memory-focus', id: 'memory-focus', tabindex: '-1', 'aria-label': t('explore.memory') },
        h('div', { class: 'card-head' },
          h('h2', { class: 'sub' }, t('explore.memory')),
          h('button', { class: 'btn small ghost', type: 'button', id: 'memory-close', onclick: () => this.closeMemory() }, t('explore.back'))));
      if (this.focusError) card.appendChild(errorBox(this.focusError));
      else if (!this.focusLeaf) card.appendChild(loadingBox());
      else {
        card.appendChild(titleBlock(this.focusLeaf, null));
        card.appendChild(leafCard(this.focusLeaf));
      }
      return card;
    },

    async load() {
      const root = $('#view-explore');
      clear(root).appendChild(loadingBox());
      try {
        this.overview = await api('/api/overview');
        this.roots = this.overview.domains.map((d) => ({
          type: 'domain', ref: d, expanded: false, children: null, total: 0,
        }));
        this.error = null;
      } catch (err) {
        this.error = err;
      }
      this.render();
    },

    render() {
      this.rendered = true;
      const root = clear($('#view-explore'));
      if (this.error) {
        root.appendChild(this.error.code === 'no_store' ? noStore() : errorBox(this.error));
        return;
      }
      if (!this.overview) { root.appendChild(loadingBox()); return; }
      const o = this.overview;
      root.appendChild(h('div', { class: 'view-head' },
        h('div', {},
          h('h1', {}, t('explore.title')),
          h('p', { class: 'lead' }, t('explore.lead'))),
        h('div', { class: 'stats' },
          stat(num(o.leaves), t('stat.memories')),
          stat(num(o.branches), t('stat.branches')),
          stat(num(o.layers + 1), t('stat.depth')),
          stat(num(o.domains.length), t('stat.domains')))));
      root.appendChild(this.searchForm());
      if (this.focus) root.appendChild(this.renderFocus());
      else if (this.query) root.appendChild(this.renderFound());
      const card = h('div', { class: 'card tree-card' },
        h('div', { class: 'card-head' },
          h('div', { class: 'tree-root-label' },
            h('span', { class: 'node-icon root' }), h('strong', {}, 'root.json'),
            h('span', { class: 'muted' }, ' · ' + tn('explore.top_entries', o.entries))),
          h('div', { class: 'card-actions' },
            h('button', { class: 'btn small ghost', type: 'button', onclick: () => this.collapseAll() }, t('explore.collapse')))));
      if (!o.domains.length) {
        card.appendChild(h('p', { class: 'empty' }, t('explore.empty')));
      } else {
        const list = h('ul', { class: 'tree', role: 'tree' });
        for (const node of this.roots) list.appendChild(this.renderNode(node));
        card.appendChild(list);
      }
      root.appendChild(card);
      this.rove();
    },

    makeCurrent(node, row) {
      this.current = node;
      document.querySelectorAll('#view-explore .tree .trow[tabindex="0"]').forEach((el) => {
        if (el !== row) el.tabIndex = -1;
      });
      row.tabIndex = 0;
    },

    rove() {
      // the current row may be gone (its branch was closed): the first row takes the Tab stop
      const rows = document.querySelectorAll('#view-explore .tree .trow');
      if (rows.length && !Array.from(rows).some((el) => el.tabIndex === 0)) {
        rows[0].tabIndex = 0;
        this.current = this.roots[0];
      }
    },

    collapseAll() {
      const walk = (n) => { n.expanded = false; (n.children || []).forEach(walk); };
      this.roots.forEach(walk);
      this.render();
    },

    renderNode(node) {
      const li = h('li', { class: ['tnode', 'tnode-' + node.type, node.expanded && 'open'], role: 'treeitem' });
      li.setAttribute('aria-expanded', String(!!node.expanded));
      node.el = li;
      const ref = node.ref;
      // one Tab stop for the whole tree (the current row); the arrows move between rows
      const row = h('div', { class: 'trow', tabindex: node === this.current ? '0' : '-1' });
      row.addEventListener('focus', () => this.makeCurrent(node, row));
      row.addEventListener('click', () => this.toggle(node));
      row.addEventListener('keydown', (e) => this.treeKey(e, node));
      row.appendChild(h('span', { class: 'caret' }));
      if (node.type === 'domain') {
        append(row, [
          domainChip(ref.name),
          h('span', { class: 'ttitle topics' }, (ref.topics || []).slice(0, 6).join(' · ')),
          h('span', { class: 'tmeta' }, tn('count.memories', ref.leaves), h('span', { class: 'sep' }), dayRange(ref.date_from, ref.date_to)),
        ]);
      } else if (node.type === 'branch') {
        append(row, [
          h('span', { class: 'badge layer', title: t('explore.layer_hint') }, 'L' + ref.layer),
          h('span', { class: 'ttitle' }, branchTitle(ref)),
          h('span', { class: 'tmeta' }, tn('count.memories', ref.leaves || 0), h('span', { class: 'sep' }), dayRange(ref.date_from, ref.date_to)),
        ]);
      } else {
        append(row, [
          leafIcon(),
          titleBlock(ref, null),
          ref.outdated ? h('span', { class: 'badge outdated' }, t('common.outdated')) : null,
          h('span', { class: 'tmeta' }, srcLabel(ref), h('span', { class: 'sep' }), day(ref.date)),
        ]);
      }
      li.appendChild(row);
      if (!node.expanded) return li;
      if (node.loading) { li.appendChild(loadingBox()); return li; }
      if (node.error) { li.appendChild(errorBox(node.error)); return li; }
      if (node.type === 'leaf') {
        if (node.leaf) li.appendChild(leafCard(node.leaf));
        return li;
      }
      const kids = h('ul', { class: 'tree', role: 'group' });
      for (const child of node.children || []) kids.appendChild(this.renderNode(child));
      li.appendChild(kids);
      const left = node.total - (node.children || []).length;
      if (left > 0) {
        li.appendChild(h('button', {
          class: 'btn small ghost more', type: 'button', onclick: () => this.more(node),
        }, tn('explore.more', left)));
      }
      return li;
    },

    treeKey(e, node) {
      // the WAI-ARIA tree pattern: Up/Down move, Right opens or enters, Left closes or leaves
      const rows = Array.from(document.querySelectorAll('#view-explore .tree .trow'));
      const i = rows.indexOf(e.currentTarget);
      const go = (el) => { if (el) { e.preventDefault(); el.focus(); } };
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); this.toggle(node); }
      else if (e.key === 'ArrowDown') go(rows[i + 1]);
      else if (e.key === 'ArrowUp') go(rows[i - 1]);
      else if (e.key === 'Home') go(rows[0]);
      else if (e.key === 'End') go(rows[rows.length - 1]);
      else if (e.key === 'ArrowRight') {
        e.preventDefault();
        if (!node.expanded) this.toggle(node);
        else go(node.el.querySelector(':scope > ul > li > .trow'));
      } else if (e.key === 'ArrowLeft') {
        e.preventDefault();
        if (node.expanded) this.toggle(node);
        else {
          const parent = node.el.parentElement.closest('li.tnode');
          go(parent && parent.querySelector(':scope > .trow'));
        }
      }
    },

    rerender(node) {
      const old = node.el;
      const fresh = this.renderNode(node);
      if (old && old.parentNode) old.parentNode.replaceChild(fresh, old);
      this.rove();
      const row = fresh.querySelector('.trow');
      const lost = document.activeElement === document.body || !document.activeElement || !document.contains(document.activeElement);
      if (row && lost) row.focus({ preventScroll: true });
    },

    async toggle(node) {
      node.expanded = !node.expanded;
      node.error = null;
      const needs = node.expanded && (node.type === 'leaf' ? !node.leaf : !node.children);
      if (!needs) { this.rerender(node); return; }
      node.loading = true;
      this.rerender(node);
      try {
        if (node.type === 'leaf') node.leaf = await api('/api/leaf?id=' + encodeURIComponent(node.ref.id));
        else await this.fetchPage(node, 0);
      } catch (err) {
        node.error = err;
      }
      node.loading = false;
      this.rerender(node);
    },

    async more(node) {
      try {
        await this.fetchPage(node, node.children.length);
      } catch (err) {
        toast(err.message, 'warn');
      }
      this.rerender(node);
    },

    async fetchPage(node, offset) {
      const q = node.type === 'domain'
        ? 'id=root&domain=' + encodeURIComponent(node.ref.name)
        : 'id=' + encodeURIComponent(node.ref.id);
      const page = await api(`/api/node?${q}&offset=${offset}&limit=${PAGE}`);
      const kids = page.children.map((ref) => ({
        type: ref.kind === 'leaf' ? 'leaf' : 'branch', ref, expanded: false, children: null, total: 0,
      }));
      node.children = offset ? node.children.concat(kids) : kids;
      node.total = page.total;
    },
  };

  // A memory's title cut at a word (never mid-word) and, on its own line, the excerpt without
  // the words the title already shows. The title is a link when href is given.
  function wordClip(text, max) {
    text = (text || '').replace(/\s+/g, ' ').trim();
    if (text.length <= max) return text;
    let cut = text.slice(0, max - 1);
    const space = cut.lastIndexOf(' ');
    if (space > max * 0.5) cut = cut.slice(0, space);
    return cut.replace(/[\s,;:.\-–—]+$/, '') + '…';
  }

  function titleParts(ref) {
    const full = (ref.excerpt || ref.content || '').replace(/\s+/g, ' ').trim();
    let title = (ref.title || '').replace(/\s+/g, ' ').trim();
    const cut = title.endsWith('…');
    const bare = cut ? title.slice(0, -1).trim() : title;
    let rest = full;
    if (bare && full.startsWith(bare)) {
      rest = full.slice(bare.length).trim();
      if (cut && rest) rest = '…' + rest;
    }
    if (!title) title = wordClip(full, 80) || ref.id;
    return { title: wordClip(title, 120), excerpt: wordClip(rest.replace(/^[.:;,\-–—\s]+/, ''), 220) };
  }

  function titleBlock(ref, href) {
    const p = titleParts(ref);
    return h('span', { class: 'ttitle' },
      href ? h('a', { class: 'tname mem-link', href }, p.title) : h('span', { class: 'tname' }, p.title),
      p.excerpt ? h('span', { class: 'texcerpt' }, p.excerpt) : null);
  }

  function leafIcon() {
    // a page with a folded corner: a memory's text, not a checkbox
    return h('svg:svg', { class: 'node-icon leaf', viewBox: '0 0 12 14', 'aria-hidden': 'true', focusable: 'false' },
      h('svg:path', { class: 'leaf-page', d: 'M1.5 1h6l3 3v9h-9z' }),
      h('svg:path', { class: 'leaf-fold', d: 'M7.5 1v3h3' }),
      h('svg:path', { class: 'leaf-lines', d: 'M3.5 7h5M3.5 9.5h5' }));
  }

  // ---------------------------------------------------------------- server words, localized
  function srcLabel(obj) {
    return !obj.source || obj.source === 'memory' ? t('common.saved_memory') : obj.source_label || obj.source;
  }

  function reasonText(r) {
    const params = Object.assign({}, r.reason_params || {});
    if (typeof params.coverage === 'number') params.coverage = Math.round(params.coverage * 100) + ' %';
    const shapeKey = 'shape.' + params.shape;
    if (typeof params.shape === 'string' && shapeKey in I18N.en) params.shape = t(shapeKey);
    if (Array.isArray(params.names)) params.names = params.names.map((n) => '"' + n + '"').join(', ');
    if (Array.isArray(params.people)) params.people = params.people.join(', ');
    const key = 'reason.' + (r.reason_code || '');
    if (r.reason_code && key in I18N.en) return t(key, params);
    return state.lang === 'en' ? r.reason : t('reason.unknown');
  }

  function subjectLabel(name) {
    const key = 'fact.subject.' + name;
    return key in I18N.en ? t(key) : name;
  }

  function attributeLabel(name) {
    const key = 'fact.attr.' + name;
    return key in I18N.en ? t(key) : name;
  }

  function keyLabel(key, sep) {
    const [subject, attribute] = key.split('::');
    return attribute === undefined ? subject : subjectLabel(subject) + sep + attributeLabel(attribute);
  }

  function noticeBoxes(obj) {
    // OUTDATED notices from their codes; the English lines only when no code came with them
    const codes = obj.notice_codes || [];
    const lines = codes.length ? codes.map(noticeLine) : state.lang === 'en' ? (obj.notices || []) : [];
    return lines.map((line) => h('div', { class: 'notice warn' }, h('strong', {}, t('common.outdated') + ' · '), line));
  }

  function noticeLine(n) {
    const p = n.params || {};
    if (n.code === 'fact_changed') {
      return t('tl.notice', { a: day(p.old_date), key: keyLabel(p.key, ' '), old: p.old, b: day(p.new_date), new: p.new });
    }
    if (n.code === 'corrected_by') return tLinked('leaf.replaced_by', { id: p.id, a: day(p.old_date), b: day(p.new_date) });
    return '';
  }

  function stat(value, label) {
    return h('div', { class: 'stat' }, h('div', { class: 'stat-value' }, value), h('div', { class: 'stat-label' }, label));
  }

  function leafCard(leaf) {
    const sp = leaf.span || {};
    const span = !sp.start_line ? '' : !sp.end_line || sp.end_line === sp.start_line
      ? t('leaf.line', { a: sp.start_line }) : t('leaf.lines', { a: sp.start_line, b: sp.end_line });
    const meta = h('dl', { class: 'meta-grid' },
      h('dt', {}, t('leaf.source')), h('dd', { title: leaf.source }, srcLabel(leaf) + (span ? ' · ' + span : '')),
      h('dt', {}, t('leaf.date')), h('dd', {}, day(leaf.timestamp)),
      h('dt', {}, t('leaf.type')), h('dd', {}, leaf.data_type + ' · ' + leaf.domain),
      h('dt', {}, t('leaf.id')), h('dd', { class: 'mono' }, memoryLink(leaf.id)));
    if (leaf.tags && leaf.tags.length) {
      append(meta, [h('dt', {}, t('leaf.tags')), h('dd', {}, leaf.tags.slice(0, 12).map((tg) => h('span', { class: 'chip tag' }, tg)))]);
    }
    const notices = noticeBoxes(leaf);
    return h('div', { class: 'leaf-card' },
      notices, meta,
      h('pre', { class: 'leaf-text', tabindex: '0' }, leaf.content.replace(/\s+$/, '')),
      leaf.truncated ? h('p', { class: 'muted' }, t('leaf.truncated', { n: num(leaf.chars) })) : null);
  }

  function noStore() {
    return h('div', { class: 'card empty-state' },
      h('div', { class: 'empty-icon' }),
      h('h2', {}, t('nostore.title')),
      h('p', {}, t('nostore.body', { path: state.info ? state.info.store : '' })),
      h('button', { class: 'btn primary', type: 'button', onclick: () => showTab('setup') }, t('nostore.action')));
  }

  // ================================================================ Diagnose
  const diagnose = {
    loaded: false, rendered: false, result: null, error: null, busy: false, query: '', clue: '',
    reset() {
      this.loaded = false; this.rendered = false; this.result = null; this.error = null;
      if (this.asked) this.run(this.query, this.clue);
    },
    load() { this.render(); },
    asked: false,

    route() {
      if (!this.asked || !this.query.trim()) return '#/diagnose';
      const p = { q: this.query };
      if (this.clue.trim()) p.clue = this.clue;
      return '#/search?' + new URLSearchParams(p);
    },

    fromRoute(r) {
      if (!r.q) return;
      if (r.q === this.query && r.clue === this.clue && (this.result || this.busy)) return;
      this.run(r.q, r.clue);
    },

    render() {
      this.rendered = true;
      const root = clear($('#view-diagnose'));
      const query = h('input', {
        id: 'diag-query', type: 'search', class: 'input grow', value: this.query,
        placeholder: t('diag.query_ph'), 'aria-label': t('diag.query'), maxlength: '2000', autocomplete: 'off',
      });
      const clue = h('input', {
        id: 'diag-clue', type: 'text', class: 'input', value: this.clue,
        placeholder: t('diag.clue_ph'), 'aria-label': t('diag.clue'), maxlength: '2000', autocomplete: 'off',
      });
      query.addEventListener('input', () => { this.query = query.value; });
      clue.addEventListener('input', () => { this.clue = clue.value; });
      const form = h('form', { class: 'search-bar', id: 'diag-form' },
        query, clue,
        h('button', { class: 'btn primary', type: 'submit', disabled: this.busy }, t('diag.search')));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        this.run(query.value, clue.value);
      });
      root.appendChild(h('div', { class: 'view-head' },
        h('div', {}, h('h1', {}, t('diag.title')), h('p', { class: 'lead' }, t('diag.lead')))));
      root.appendChild(form);
      const out = h('div', { id: 'diag-result' });
      root.appendChild(out);
      if (this.busy) out.appendChild(loadingBox());
      else if (this.error) out.appendChild(this.error.code === 'no_store' ? noStore() : errorBox(this.error));
      else if (this.result) out.appendChild(this.renderResult(this.result));
      else out.appendChild(h('div', { class: 'card hint-card' }, h('p', {}, t('diag.hint'))));
    },

    async run(query, clue) {
      this.query = query; this.clue = clue;
      if (!query.trim()) return;
      this.asked = true;
      if (!routing && state.tab === 'diagnose') setRoute(this.route(), true);
      this.busy = true; this.error = null;
      this.render();
      try {
        this.result = await api('/api/search', { query, clue: clue.trim() || null, top_k: 5 });
      } catch (err) {
        this.error = err; this.result = null;
      }
      this.busy = false;
      this.render();
    },

    renderResult(r) {
      let verdict, cls;
      if (r.not_found) { verdict = t('diag.not_found'); cls = 'notfound'; }
      else if (r.ambiguous) { verdict = t('diag.ambiguous'); cls = 'ambiguous'; }
      else { verdict = t('diag.found'); cls = 'found'; }
      const pct = Math.round((r.confidence || 0) * 100);
      const meter = h('div', { class: 'meter' }, h('div', { class: 'meter-fill ' + cls }));
      meter.firstChild.style.width = pct + '%';
      const share = r.total_files ? Math.max(1, Math.round((r.files_opened / r.total_files) * 100)) : 0;
      const files = h('div', { class: 'meter thin' }, h('div', { class: 'meter-fill files' }));
      files.firstChild.style.width = Math.min(100, share) + '%';
      const summary = h('div', { class: 'card verdict ' + cls, id: 'diag-verdict' },
        h('div', { class: 'verdict-top' },
          h('span', { class: 'verdict-badge ' + cls }, verdict),
          h('span', { class: 'verdict-reason' }, r.not_found ? reasonText(r) : r.ambiguous ? t('diag.ambiguous_hint') : t('diag.found_hint'))),
        h('div', { class: 'metrics' },
          h('div', { class: 'metric' },
            h('div', { class: 'metric-label' }, t('diag.confidence')),
            h('div', { class: 'metric-value', id: 'diag-confidence' }, (r.confidence || 0).toFixed(2)),
            meter),
          h('div', { class: 'metric' },
            h('div', { class: 'metric-label' }, t('diag.files')),
            h('div', { class: 'metric-value', id: 'diag-files' }, t('diag.files_value', { a: num(r.files_opened), b: num(r.total_files) })),
            files,
            h('div', { class: 'metric-sub', id: 'diag-reads' }, t('diag.reads', { b: tn('diag.branch_files', r.node_reads), l: tn('diag.memory_files', r.leaf_reads) }))),
          h('div', { class: 'metric' },
            h('div', { class: 'metric-label' }, t('diag.store')),
            h('div', { class: 'metric-value' }, tn('count.memories', r.total_leaves)),
            h('div', { class: 'metric-sub' }, tn('count.branches', r.total_nodes) + ' · ' + t('diag.depth', { n: r.depth }) + ' · ' + r.elapsed_ms + ' ms'))));
      const left = h('div', { class: 'diag-main' }, summary);
      if (r.not_found) {
        left.appendChild(h('div', { class: 'card' }, h('p', {}, t('diag.not_found_body', { q: r.query }))));
      } else if (r.ambiguous) {
        left.appendChild(h('div', { class: 'card', id: 'diag-candidates' },
          h('h2', { class: 'sub' }, tn('diag.candidates', r.hits.length)),
          h('ol', { class: 'hit-list' }, r.hits.map((hit) => hitItem(hit, true)))));
      } else {
        const best = r.hits[0];
        left.appendChild(h('div', { class: 'card best', id: 'diag-best' },
          h('h2', { class: 'sub' }, t('diag.best')),
          hitHead(best),
          best.outdated ? noticeBoxes(best) : null,
          h('pre', { class: 'leaf-text', tabindex: '0', 'aria-label': t('diag.best') }, best.content.replace(/\s+$/, ''))));
        if (r.hits.length > 1) {
          left.appendChild(h('div', { class: 'card' },
            h('h2', { class: 'sub' }, t('diag.others')),
            h('ol', { class: 'hit-list', start: '2' }, r.hits.slice(1).map((hit) => hitItem(hit, false)))));
        }
      }
      const right = h('div', { class: 'card descent', id: 'diag-path' },
        h('h2', { class: 'sub' }, t('diag.path')),
        h('p', { class: 'muted small' }, t('diag.path_hint')),
        r.descent ? descentTree(r.descent) : h('p', { class: 'empty' }, t('diag.no_path')));
      return h('div', { class: 'diag-grid' }, left, right);
    },
  };

  function hitHead(hit) {
    return h('div', { class: 'hit-head' },
      domainChip(hit.domain),
      h('span', { class: 'hit-src' }, srcLabel(hit)),
      h('span', { class: 'muted' }, day(hit.timestamp)),
      hit.outdated ? h('span', { class: 'badge outdated' }, t('common.outdated')) : null,
      h('span', { class: 'muted mono small' }, t('diag.score', { s: hit.score.toFixed(2) })),
      memoryLink(hit.id, null, 'mono small'));
  }

  function hitItem(hit, candidate) {
    return h('li', { class: ['hit', candidate && 'candidate'] },
      hitHead(hit),
      h('div', { class: 'hit-text' }, wordClip(hit.content, 260)),
      h('div', { class: 'hit-path mono small' }, hit.path.join(' › ')));
  }

  function descentTree(descent) {
    const build = (level) => {
      const ul = h('ul', { class: 'dtree' });
      for (const item of level.items) {
        const label = item.kind === 'leaf' ? (item.title || item.id) : branchTitle(item);
        const li = h('li', { class: ['dnode', item.on_path && 'on-path', item.best && 'best-path', item.kind] },
          h('div', { class: 'drow' },
            item.kind === 'leaf' ? leafIcon() : h('span', { class: 'badge layer' }, 'L' + item.layer),
            item.kind === 'leaf'
              ? h('a', { class: 'dlabel mem-link', title: item.id, href: memoryHref(item.id) }, wordClip(label, 90))
              : h('span', { class: 'dlabel', title: item.id }, label),
            item.kind !== 'leaf' && item.on_path ? domainChip(item.domain) : null,
            item.hit_rank ? h('span', { class: 'badge rank' }, '#' + item.hit_rank) : null));
        if (item.level) li.appendChild(build(item.level));
        ul.appendChild(li);
      }
      if (level.hidden) ul.appendChild(h('li', { class: 'dnode hidden-more muted small' }, tn('diag.hidden', level.hidden)));
      return ul;
    };
    return h('div', { class: 'dtree-wrap' },
      h('div', { class: 'drow root on-path best-path' }, h('span', { class: 'node-icon root' }), h('strong', {}, 'root')),
      build(descent.root));
  }

  // ================================================================ Timeline
  const timeline = {
    loaded: false, rendered: false, data: null, error: null, subject: '',
    reset() { this.loaded = false; this.rendered = false; this.data = null; this.error = null; },

    route() {
      return this.subject ? '#/timeline?' + new URLSearchParams({ subject: this.subject }) : '#/timeline';
    },

    fromRoute(r) {
      if ((r.subject || '') !== this.subject) { this.subject = r.subject || ''; this.rendered = false; }
    },

    async load() {
      clear($('#view-timeline')).appendChild(loadingBox());
      try {
        this.data = await api('/api/timeline');
        this.error = null;
      } catch (err) {
        this.error = err;
      }
      this.render();
    },

    render() {
      this.rendered = true;
      const root = clear($('#view-timeline'));
      if (this.error) {
        root.appendChild(this.error.code === 'no_store' ? noStore() : errorBox(this.error));
        return;
      }
      if (!this.data) { root.appendChild(loadingBox()); return; }
      const d = this.data;
      root.appendChild(h('div', { class: 'view-head' },
        h('div', {}, h('h1', {}, t('tl.title')), h('p', { class: 'lead' }, t('tl.lead'))),
        h('div', { class: 'stats' },
          stat(num(d.keys.length), t('tl.tracked')),
          stat(num(d.facts), t('tl.facts')),
          stat(num(d.contradictions.length), t('tl.changes')))));
      if (!d.keys.length) {
        root.appendChild(h('div', { class: 'card' }, h('p', { class: 'empty' }, t('tl.empty'))));
        return;
      }
      const chips = h('div', { class: 'filter-row' },
        h('span', { class: 'muted' }, t('tl.subject')),
        [''].concat(d.subjects).map((s) => h('button', {
          class: ['chip-btn', this.subject === s && 'active'], type: 'button', dataset: { subject: s },
          'aria-pressed': String(this.subject === s),
          onclick: () => { this.subject = s; setRoute(this.route(), true); this.render(); },
        }, s ? subjectLabel(s) : t('tl.all'))),
        h('span', { class: 'legend' },
          h('span', { class: 'swatch active' }), t('tl.active'),
          h('span', { class: 'swatch historical' }), t('tl.historical')));
      root.appendChild(chips);
      const keys = d.keys.filter((k) => !this.subject || k.subject === this.subject);
      const span = timeSpan(d);
      const wrap = h('div', { class: 'tl-list' });
      root.appendChild(wrap);
      const width = Math.max(260, Math.min(1180, (root.clientWidth || 1100) - 40));
      for (const k of keys) {
        wrap.appendChild(h('div', { class: 'card tl-card', dataset: { key: k.key } },
          h('div', { class: 'tl-head' },
            h('h2', { class: 'sub' }, h('span', { class: 'muted' }, subjectLabel(k.subject) + ' · '), attributeLabel(k.attribute)),
            h('span', { class: 'tl-now' }, t('tl.current'), h('strong', {}, k.active), h('span', { class: 'muted' }, ' · ' + t('tl.since', { d: day(k.since) })))),
          k.source_leaf
            ? h('p', { class: 'tl-source small' }, t('tl.from'), ' ',
              h('a', { class: 'mem-link', href: memoryHref(k.source_leaf), title: k.source_leaf }, t('tl.from_memory', { d: day(k.source_date) })))
            : h('p', { class: 'tl-source small muted' }, t('tl.from_none')),
          drawTimeline(k, span, width)));
      }
      const changes = d.contradictions.filter((c) => !this.subject || c.key.startsWith(this.subject + '::'));
      root.appendChild(h('div', { class: 'card', id: 'tl-changes' },
        h('h2', { class: 'sub' }, tn('tl.detected', changes.length)),
        changes.length ? h('ol', { class: 'change-list' }, changes.slice().reverse().map((c) => h('li', {},
          h('div', { class: 'change-when' }, day(c.new_timestamp)),
          h('div', { class: 'change-body' },
            h('div', { class: 'change-key' }, keyLabel(c.key, ' · ')),
            h('div', { class: 'change-vals' },
              h('span', { class: 'val old' }, c.old_value),
              h('span', { class: 'arrow' }, '→'),
              h('span', { class: 'val new' }, c.new_value)),
            h('div', { class: 'change-notice muted small' }, noticeText(c)),
            changeSources(c))))) : h('p', { class: 'empty' }, t('tl.no_changes'))));
    },
  };

  // the memories a change was read from, as links like every other memory id shown
  function changeSources(c) {
    const link = (id) => (id ? memoryLink(id, null, 'mono') : h('span', { class: 'muted' }, t('tl.by_hand')));
    return h('div', { class: 'change-sources small' },
      t('tl.change_memories'), ' ', link(c.old_leaf),
      h('span', { class: 'arrow' }, ' → '), link(c.new_leaf));
  }

  function noticeText(c) {
    return t('tl.notice', {
      a: day(c.old_timestamp), key: keyLabel(c.key, ' '), old: c.old_value,
      b: day(c.new_timestamp), new: c.new_value,
    });
  }

  function timeSpan(d) {
    let lo = Infinity, hi = -Infinity;
    for (const k of d.keys) {
      for (const p of k.periods) {
        const a = Date.parse(p.valid_from);
        if (!isNaN(a)) { lo = Math.min(lo, a); hi = Math.max(hi, a); }
        const b = p.valid_to ? Date.parse(p.valid_to) : NaN;
        if (!isNaN(b)) hi = Math.max(hi, b);
      }
    }
    const now = Date.parse(d.now);
    if (!isNaN(now)) hi = Math.max(hi, now);
    if (!isFinite(lo)) { lo = now - 86400000 * 365; hi = now; }
    const pad = Math.max((hi - lo) * 0.03, 86400000 * 7);
    return { lo: lo - pad, hi: hi + pad, now };
  }

  function drawTimeline(k, span, width) {
    const left = 16, right = 16, rowH = 34, top = 8, axisH = 26;
    const height = top + k.periods.length * rowH + axisH;
    const inner = width - left - right;
    const x = (ms) => left + ((ms - span.lo) / (span.hi - span.lo)) * inner;
    const svg = h('svg:svg', {
      class: 'tl-svg', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
      'aria-label': t('tl.aria', { key: keyLabel(k.key, ' ') }),
    });
    // year (or month) grid
    const axisY = top + k.periods.length * rowH + 4;
    for (const tick of ticks(span)) {
      const tx = x(tick.ms);
      svg.appendChild(h('svg:line', { class: 'tl-grid', x1: tx, x2: tx, y1: top - 4, y2: axisY }));
      svg.appendChild(h('svg:text', { class: 'tl-tick', x: tx + 3, y: axisY + 16 }, tick.label));
    }
    if (!isNaN(span.now)) {
      const nx = x(span.now);
      svg.appendChild(h('svg:line', { class: 'tl-nowline', x1: nx, x2: nx, y1: top - 4, y2: axisY }));
    }
    k.periods.forEach((p, i) => {
      const a = Date.parse(p.valid_from);
      const b = p.valid_to ? Date.parse(p.valid_to) : span.now;
      const x1 = x(a), x2 = Math.max(x(b), x1 + 6);
      const y = top + i * rowH;
      const active = p.status === 'ACTIVE';
      const g = h('svg:g', { class: ['tl-period', active ? 'active' : 'historical'] });
      g.appendChild(h('svg:title', {}, `${p.value}\n${day(p.valid_from)} → ${p.valid_to ? day(p.valid_to) : t('tl.now')}`));
      g.appendChild(h('svg:rect', { class: 'tl-bar', x: x1, y: y + 18, width: x2 - x1, height: 9, rx: 4.5 }));
      if (p.valid_to && i + 1 < k.periods.length) {
        g.appendChild(h('svg:line', { class: 'tl-link', x1: x2, x2: x2, y1: y + 27, y2: y + rowH + 18 }));
      }
      const label = `${p.value}  ·  ${dayRange(p.valid_from, p.valid_to) || day(p.valid_from)}${active ? '  ·  ' + t('tl.active_now') : ''}`;
      // keep the label inside the drawing: start it at the bar, or end it at the bar's end
      const text = clip(label, Math.max(16, Math.floor(inner / 6.8)));
      const textW = text.length * 6.8;
      let anchorEnd = x1 > left + inner * 0.55;
      let tx = anchorEnd ? x2 : x1;
      if (!anchorEnd && tx + textW > width - right) {
        anchorEnd = true; tx = Math.min(width - right, Math.max(x2, left + textW));
      }
      if (anchorEnd && tx - textW < left) {
        anchorEnd = false; tx = Math.max(left, Math.min(x1, width - right - textW));
      }
      g.appendChild(h('svg:text', {
        class: 'tl-label', x: tx, y: y + 13, 'text-anchor': anchorEnd ? 'end' : 'start',
      }, text));
      svg.appendChild(g);
    });
    return svg;
  }

  function clip(text, max) {
    return text.length > max ? text.slice(0, max - 1) + '…' : text;
  }

  function ticks(span) {
    const out = [];
    const lo = new Date(span.lo), hi = new Date(span.hi);
    const years = hi.getUTCFullYear() - lo.getUTCFullYear();
    if (years >= 2) {
      const stepY = years > 12 ? Math.ceil(years / 10) : 1;
      for (let y = lo.getUTCFullYear() + 1; y <= hi.getUTCFullYear(); y += stepY) {
        out.push({ ms: Date.UTC(y, 0, 1), label: String(y) });
      }
    } else {
      const fmt = new Intl.DateTimeFormat(state.lang, { month: 'short', year: '2-digit', timeZone: 'UTC' });
      const d = new Date(Date.UTC(lo.getUTCFullYear(), lo.getUTCMonth() + 1, 1));
      const months = Math.max(1, Math.ceil((span.hi - span.lo) / (86400000 * 30 * 8)));
      while (d.getTime() < span.hi) {
        out.push({ ms: d.getTime(), label: fmt.format(d) });
        d.setUTCMonth(d.getUTCMonth() + months);
      }
    }
    return out;
  }

  // ================================================================ Set up
  const setup = {
    loaded: false, rendered: false, snippets: null, error: null,
    mode: 'project', project: '', storeName: '', storePreview: null, projectPreview: null,
    replace: false, written: null, created: null, busy: false,
    hooks: null, hooksPreview: null, hooksDone: null,
    reset() {},

    async load() {
      clear($('#view-setup')).appendChild(loadingBox());
      try {
        await refreshInfo();
        this.snippets = await api('/api/setup/snippets');
        await this.loadHooks();
        this.error = null;
      } catch (err) {
        this.error = err;
      }
      this.render();
    },

    render() {
      this.rendered = true;
      const root = clear($('#view-setup'));
      if (this.error) { root.appendChild(errorBox(this.error)); return; }
      if (!state.info || !this.snippets) { root.appendChild(loadingBox()); return; }
      root.appendChild(h('div', { class: 'view-head' },
        h('div', {}, h('h1', {}, t('setup.title')), h('p', { class: 'lead' }, t('setup.lead')))));
      root.appendChild(this.memoryCard());
      root.appendChild(this.agentCard());
      if (state.info.exists) root.appendChild(this.hooksCard());
    },

    // ---- step 3 (optional): the agents' lifecycle hooks. The server plans every change
    // (ihmt/loop/settings.py); this only shows the plan and sends the user's confirmation.
    async loadHooks() {
      const q = this.project ? '?folder=' + encodeURIComponent(this.project) : '';
      try {
        this.hooks = await api('/api/setup/hooks' + q);
      } catch (err) {
        this.hooks = { rows: [], error: err.message };
      }
    },

    hooksCard() {
      const s = this.hooks || { rows: [] };
      const statusText = (row) => {
        if (row.action === 'installed') return t('setup.hooks_on', { events: row.events.join(', ') });
        if (row.action === 'not installed') return t('setup.hooks_off');
        if (row.action === 'no project') return t('setup.hooks_no_project');
        return row.action;
      };
      const rows = s.rows.map((row) => {
        const id = row.agent + '-' + row.scope;
        const canAct = row.action === 'installed' || row.action === 'not installed';
        const action = row.action === 'installed' ? 'uninstall' : 'install';
        return h('tr', { id: 'hooks-row-' + id },
          h('td', {}, row.agent === 'claude' ? 'Claude Code' : 'Codex'),
          h('td', {}, t(row.scope === 'user' ? 'setup.hooks_user' : 'setup.hooks_project')),
          h('td', {}, row.path ? h('code', { class: 'path' }, row.path) : ''),
          h('td', {}, h('span', { class: ['status', row.action === 'installed' ? 'ok' : 'off'] }, statusText(row))),
          h('td', {}, canAct ? h('button', {
            class: 'btn', type: 'button', id: 'hooks-' + action + '-' + id,
            onclick: () => this.previewHooks(row.agent, row.scope, action),
          }, t(action === 'install' ? 'setup.hooks_install' : 'setup.hooks_uninstall')) : ''));
      });
      const body = h('div', { class: 'step-body' },
        h('h2', {}, t('setup.hooks_title'), ' ', h('span', { class: 'status off' }, t('setup.optional'))),
        h('p', { class: 'muted' }, t('setup.hooks_lead')),
        h('p', { class: 'muted small' }, t('setup.hooks_how', { path: state.info.workspace })),
        h('div', { class: 'path-row' },
          h('span', { class: 'path-label' }, t('setup.project_folder')),
          h('code', { class: 'path', id: 'hooks-project-path' }, this.project || t('setup.none_chosen')),
          h('button', { class: 'btn', type: 'button', id: 'hooks-choose-project', onclick: () => folderDialog.open('project') }, t('setup.choose'))),
        s.error ? h('div', { class: 'notice warn' }, s.error) : null,
        h('table', { class: 'hooks-table', id: 'hooks-status' },
          h('thead', {}, h('tr', {},
            h('th', {}, t('setup.hooks_agent')), h('th', {}, t('setup.hooks_scope')),
            h('th', {}, t('setup.hooks_file')), h('th', {}, t('setup.hooks_state')), h('th', {}, t('setup.hooks_change')))),
          h('tbody', {}, rows)));
      if (this.hooksDone) {
        body.appendChild(h('div', { class: 'notice ok', id: 'hooks-done' },
          this.hooksDone.action === 'installed'
            ? t('setup.hooks_done_on', { path: this.hooksDone.path })
            : t('setup.hooks_done_off', { path: this.hooksDone.path })));
      }
      if (this.hooksPreview) body.appendChild(this.hooksPreviewBox(this.hooksPreview));
      return h('section', { class: 'card step', id: 'setup-hooks' }, h('div', { class: 'step-num' }, '3'), body);
    },

    hooksPreviewBox(p) {
      const box = h('div', { class: 'preview', id: 'hooks-preview' },
        h('div', { class: 'preview-title' }, h('code', {}, p.path)));
      if (!p.id) {
        box.appendChild(h('div', { class: 'notice info' }, t(p.action === 'install' ? 'setup.hooks_already' : 'setup.hooks_nothing')));
        return box;
      }
      append(box, [
        h('div', { class: 'muted small' }, t('setup.hooks_steps')),
        h('ul', { class: 'steps', id: 'hooks-steps' }, p.steps.map((line) => h('li', {}, line))),
        p.diff ? h('div', { class: 'muted small' }, t('setup.hooks_diff')) : null,
        p.diff ? h('pre', { class: 'code', id: 'hooks-diff', tabindex: '0' }, p.diff) : null,
        h('div', { class: 'actions' },
          h('button', { class: 'btn primary', type: 'button', id: 'confirm-hooks', onclick: () => this.confirm(p.id, 'hooks') },
            t(p.action === 'install' ? 'setup.hooks_confirm_install' : 'setup.hooks_confirm_uninstall')),
          h('button', { class: 'btn ghost', type: 'button', onclick: () => { this.hooksPreview = null; this.render(); } }, t('common.cancel')))]);
      return box;
    },

    async previewHooks(agent, scope, action) {
      this.hooksDone = null;
      try {
        const body = { kind: 'hooks', agent, scope, action };
        if (scope === 'project') body.folder = this.project;
        this.hooksPreview = await api('/api/setup/preview', body);
      } catch (err) {
        toast(err.message, 'warn');
      }
      this.render();
      const confirm = $('#confirm-hooks');
      if (confirm) confirm.focus();
    },

    memoryCard() {
      const info = state.info;
      const status = info.exists
        ? h('span', { class: 'status ok' }, t('setup.store_found'))
        : h('span', { class: 'status off' }, t('setup.store_missing'));
      const card = h('section', { class: 'card step', id: 'setup-memory' },
        h('div', { class: 'step-num' }, '1'),
        h('div', { class: 'step-body' },
          h('h2', {}, t('setup.memory_title')),
          h('p', { class: 'muted' }, t('setup.memory_lead')),
          h('div', { class: 'path-row' },
            h('span', { class: 'path-label' }, t('setup.memory_folder')),
            h('code', { class: 'path', id: 'memory-path' }, info.workspace),
            status,
            h('button', { class: 'btn', type: 'button', id: 'choose-memory', onclick: () => folderDialog.open('memory') }, t('setup.choose'))),
          info.exists ? h('p', { class: 'muted small' }, t('setup.store_at', { path: info.store })) : this.createPanel(),
          info.exists && this.storePreview ? this.previewBox(this.storePreview) : null));
      if (this.created) {
        card.querySelector('.step-body').appendChild(h('div', { class: 'notice ok' }, t('setup.created', { path: this.created })));
      }
      return card;
    },

    createPanel() {
      const p = this.storePreview;
      const name = h('input', {
        class: 'input', type: 'text', id: 'store-name', value: this.storeName,
        placeholder: t('setup.subfolder_ph'), 'aria-label': t('setup.subfolder'),
      });
      name.addEventListener('input', () => { this.storeName = name.value; });
      const panel = h('div', { class: 'subpanel' },
        h('div', { class: 'inline-form' },
          h('label', { for: 'store-name' }, t('setup.subfolder')), name,
          h('button', { class: 'btn primary', type: 'button', id: 'preview-store', onclick: () => this.previewStore() }, t('setup.preview_store'))));
      if (p) panel.appendChild(this.previewBox(p));
      return panel;
    },

    previewBox(p) {
      return h('div', { class: 'preview', id: 'store-preview' },
        h('div', { class: 'preview-title' }, t('setup.will_create', { path: p.store })),
        h('pre', { class: 'code', tabindex: '0' }, p.creates.join('\n')),
        h('div', { class: 'actions' },
          h('button', { class: 'btn primary', type: 'button', id: 'confirm-store', onclick: () => this.confirm(p.id, 'store') }, t('setup.confirm_create')),
          h('button', { class: 'btn ghost', type: 'button', onclick: () => { this.storePreview = null; this.render(); } }, t('common.cancel'))));
    },

    async previewStore() {
      try {
        const body = { kind: 'store', folder: state.info.workspace };
        if (this.storeName.trim()) body.name = this.storeName.trim();
        const p = await api('/api/setup/preview', body);
        if (p.exists) {
          await api('/api/memory/select', { folder: p.workspace });
          await this.afterSwitch();
          toast(t('setup.store_exists'), 'ok');
          return;
        }
        this.storePreview = p;
      } catch (err) {
        toast(err.message, 'warn');
      }
      this.render();
    },

    async afterSwitch() {
      await refreshInfo();
      this.snippets = await api('/api/setup/snippets');
      this.storePreview = null; this.projectPreview = null; this.written = null;
      this.hooksPreview = null; this.hooksDone = null;
      await this.loadHooks();
      memoryChanged();
      this.render();
    },

    agentCard() {
      const modes = [
        ['project', t('setup.mode_project'), t('setup.mode_project_sub')],
        ['claude', t('setup.mode_claude'), t('setup.mode_claude_sub')],
        ['codex', t('setup.mode_codex'), t('setup.mode_codex_sub')],
        ['opencode', t('setup.mode_opencode'), t('setup.mode_opencode_sub')],
      ];
      const picker = h('div', { class: 'mode-picker', role: 'radiogroup', 'aria-label': t('setup.agent_title') },
        modes.map(([id, title, sub]) => h('button', {
          class: ['mode', this.mode === id && 'active'], type: 'button', role: 'radio',
          'aria-checked': String(this.mode === id), dataset: { mode: id },
          onclick: () => { this.mode = id; this.render(); },
        }, h('span', { class: 'mode-title' }, title), h('span', { class: 'mode-sub' }, sub))));
      const body = h('div', { class: 'mode-body' });
      const s = this.snippets;
      if (!s.mcp_server_exists) body.appendChild(h('div', { class: 'notice warn' }, t('setup.no_server', { path: s.mcp_server })));
      if (this.mode === 'project') body.appendChild(this.projectPanel());
      else if (this.mode === 'claude') {
        append(body, [
          h('p', {}, t('setup.claude_help')),
          codeBlock(s.claude.command, 'cmd-claude'),
          h('p', { class: 'muted small' }, t('setup.claude_verify')),
          codeBlock(s.claude.verify)]);
      } else if (this.mode === 'codex') {
        append(body, [
          h('p', {}, t('setup.codex_help')),
          codeBlock(s.codex.command, 'cmd-codex'),
          h('p', {}, t('setup.codex_toml', { path: s.codex.config_path })),
          codeBlock(s.codex.config, 'cfg-codex')]);
      } else {
        append(body, [
          h('p', {}, t('setup.opencode_help', { path: s.opencode.config_path })),
          codeBlock(s.opencode.json, 'cfg-opencode')]);
      }
      if (this.mode !== 'project') body.appendChild(h('p', { class: 'muted small' }, t('setup.no_run')));
      return h('section', { class: 'card step', id: 'setup-agent' },
        h('div', { class: 'step-num' }, '2'),
        h('div', { class: 'step-body' },
          h('h2', {}, t('setup.agent_title')),
          h('p', { class: 'muted' }, t('setup.agent_lead', { path: state.info.workspace })),
          picker, body));
    },

    projectPanel() {
      const p = this.projectPreview;
      const panel = h('div', { class: 'project-panel' },
        h('p', {}, t('setup.project_help')),
        h('div', { class: 'path-row' },
          h('span', { class: 'path-label' }, t('setup.project_folder')),
          h('code', { class: 'path', id: 'project-path' }, this.project || t('setup.none_chosen')),
          h('button', { class: 'btn', type: 'button', id: 'choose-project', onclick: () => folderDialog.open('project') }, t('setup.choose')),
          h('button', {
            class: 'btn primary', type: 'button', id: 'preview-project', disabled: !this.project,
            onclick: () => this.previewProject(false),
          }, t('setup.preview_file'))));
      if (this.written) {
        panel.appendChild(h('div', { class: 'notice ok', id: 'written' },
          t('setup.written', { path: this.written.written, n: num(this.written.bytes) }), ' ', t('setup.approve_hint')));
      }
      if (!p) return panel;
      const statusText = {
        new: t('setup.st_new'),
        merge: tn('setup.st_merge', p.other_servers.length, { names: p.other_servers.join(', ') }),
        replace: t('setup.st_replace'),
        unchanged: t('setup.st_unchanged'),
        conflict: t('setup.st_conflict'),
      }[p.status];
      const box = h('div', { class: ['preview', p.status], id: 'project-preview' },
        h('div', { class: 'preview-title' }, h('code', {}, p.path)),
        h('div', { class: 'notice ' + (p.status === 'conflict' ? 'warn' : 'info') }, statusText));
      if (p.status === 'conflict') {
        append(box, [
          h('div', { class: 'two-col' },
            h('div', {}, h('div', { class: 'muted small' }, t('setup.existing_entry')), h('pre', { class: 'code', tabindex: '0' }, JSON.stringify(p.existing_entry, null, 2))),
            h('div', {}, h('div', { class: 'muted small' }, t('setup.new_entry')), h('pre', { class: 'code', tabindex: '0' }, JSON.stringify(p.entry, null, 2)))),
          h('div', { class: 'actions' },
            h('button', { class: 'btn warn', type: 'button', id: 'preview-replace', onclick: () => this.previewProject(true) }, t('setup.replace_entry')))]);
      } else if (p.status !== 'unchanged') {
        append(box, [
          h('div', { class: 'muted small' }, t('setup.exact_content')),
          h('pre', { class: 'code', id: 'project-preview-text', tabindex: '0' }, p.text),
          h('div', { class: 'actions' },
            h('button', { class: 'btn primary', type: 'button', id: 'confirm-project', onclick: () => this.confirm(p.id, 'project') },
              p.status === 'replace' ? t('setup.confirm_replace') : t('setup.confirm_write')),
            h('button', { class: 'btn ghost', type: 'button', onclick: () => { this.projectPreview = null; this.render(); } }, t('common.cancel')))]);
      }
      panel.appendChild(box);
      return panel;
    },

    async previewProject(replace) {
      this.written = null;
      try {
        this.projectPreview = await api('/api/setup/preview', { kind: 'project', folder: this.project, replace });
      } catch (err) {
        toast(err.message, 'warn');
      }
      this.render();
    },

    async confirm(id, kind) {
      try {
        const res = await api('/api/setup/confirm', { id });
        if (kind === 'store') {
          this.created = res.created;
          await this.afterSwitch();
        } else if (kind === 'hooks') {
          this.hooksDone = res;
          this.hooksPreview = null;
          await this.loadHooks();
          this.render();
        } else {
          this.written = res;
          this.projectPreview = null;
          this.render();
        }
        toast(t('setup.done'), 'ok');
      } catch (err) {
        toast(err.message, 'warn');
        if (kind === 'store') this.storePreview = null;
        else if (kind === 'hooks') { this.hooksPreview = null; await this.loadHooks(); }
        else this.projectPreview = null;
        this.render();
      }
    },
  };

  // ---------------------------------------------------------------- folder dialog
  const folderDialog = {
    mode: 'memory', listing: null, hidden: false, error: null,

    async open(mode) {
      this.mode = mode;
      this.opener = document.activeElement && document.activeElement.id ? document.activeElement.id : (mode === 'memory' ? 'choose-memory' : 'choose-project');
      this.focusIn = true;
      const start = mode === 'memory' ? state.info.workspace : setup.project;
      // a hidden memory folder (~/.ihmt) must show among its siblings: show hidden folders
      if (start && /(^|[\\/])\.[^\\/]+$/.test(start)) this.hidden = true;
      $('#modal').hidden = false;
      document.body.classList.add('modal-open');
      await this.go(start || '', true);
      // opened on the memory itself: show it among its siblings instead
      if (mode === 'memory' && this.listing && this.listing.store && this.listing.parent) {
        await this.go(this.listing.parent, false);
      }
    },

    close() {
      $('#modal').hidden = true;
      document.body.classList.remove('modal-open');
      const back = this.opener && document.getElementById(this.opener);
      if (back) back.focus();
    },

    trap(e) {
      // keep Tab inside the open dialog
      const items = Array.from($('#modal').querySelectorAll('button, input, [tabindex="0"]')).filter((el) => !el.disabled && el.offsetParent !== null);
      if (!items.length) return;
      const first = items[0], last = items[items.length - 1];
      const inside = $('#modal').contains(document.activeElement);
      if (e.shiftKey && (document.activeElement === first || !inside)) { e.preventDefault(); last.focus(); }
      else if (!e.shiftKey && (document.activeElement === last || !inside)) { e.preventDefault(); first.focus(); }
    },

    async go(path, fallback) {
      try {
        this.listing = await this.fetch(path, 0);
        this.error = null;
      } catch (err) {
        if (fallback && path) return this.go('', false);
        this.error = err;
      }
      this.render();
    },

    fetch(path, offset) {
      const q = 'path=' + encodeURIComponent(path || '') + '&offset=' + offset + '&limit=' + FOLDER_PAGE + '&hidden=' + (this.hidden ? '1' : '0');
      return api('/api/fs/list?' + q);
    },

    async more() {
      const l = this.listing;
      try {
        const next = await this.fetch(l.path, l.entries.length);
        next.entries = l.entries.concat(next.entries);
        this.listing = next;
      } catch (err) {
        toast(err.message, 'warn');
      }
      this.render();
      const items = $('#folder-list').querySelectorAll('.folder');
      if (items.length) items[Math.min(items.length - 1, l.entries.length + (l.parent ? 1 : 0))].focus();
    },

    render() {
      const box = $('#modal');
      const hadFocus = this.focusIn || box.contains(document.activeElement);
      this.focusIn = false;
      clear(box);
      const l = this.listing;
      const title = this.mode === 'memory' ? t('fd.title_memory') : t('fd.title_project');
      const dialog = h('div', { class: 'modal-card', role: 'dialog', 'aria-modal': 'true', 'aria-label': title });
      dialog.appendChild(h('div', { class: 'modal-head' },
        h('h2', {}, title),
        h('button', { class: 'icon-btn', type: 'button', 'aria-label': t('common.close'), onclick: () => this.close() }, '×')));
      if (this.error) dialog.appendChild(errorBox(this.error));
      if (l) {
        const typed = h('input', {
          class: 'input grow', type: 'text', id: 'fd-path', value: l.path, autocomplete: 'off', spellcheck: 'false',
          'aria-label': t('fd.type_path'),
        });
        const pathForm = h('form', { class: 'fd-path-form' }, typed,
          h('button', { class: 'btn small', type: 'submit' }, t('fd.go')));
        pathForm.addEventListener('submit', async (e) => {
          e.preventDefault();
          try {
            this.listing = await this.fetch(typed.value.trim(), 0);
            this.error = null;
          } catch (err) {
            this.error = err;
          }
          this.render();
        });
        dialog.appendChild(pathForm);
        dialog.appendChild(h('nav', { class: 'crumbs', 'aria-label': t('fd.location') },
          l.crumbs.map((c, i) => [i ? h('span', { class: 'crumb-sep' }, '/') : null,
            h('button', { class: 'crumb', type: 'button', onclick: () => this.go(c.path) }, c.name)])));
        const list = h('ul', { class: 'folder-list', id: 'folder-list' });
        if (l.parent) {
          list.appendChild(h('li', {}, h('button', { class: 'folder up', type: 'button', onclick: () => this.go(l.parent) },
            h('span', { class: 'folder-icon up' }), t('fd.up'))));
        }
        const current = this.mode === 'memory' ? state.info.workspace : setup.project;
        const shown = l.entries;
        for (const e of shown) {
          list.appendChild(h('li', {}, h('button', {
            class: ['folder', e.hidden && 'is-hidden', e.path === current && 'current'], type: 'button', dataset: { path: e.path },
            onclick: () => this.go(e.path),
          }, h('span', { class: 'folder-icon' }), h('span', { class: 'folder-name' }, e.name),
          e.store ? h('span', { class: 'badge store' }, t('fd.store')) : null,
          e.mcp_json ? h('span', { class: 'badge mcp' }, '.mcp.json') : null)));
        }
        if (!shown.length) {
          list.appendChild(h('li', { class: 'empty' }, l.hidden_count ? tn('fd.only_hidden', l.hidden_count) : t('fd.empty')));
        }
        if (l.more) {
          list.appendChild(h('li', { class: 'fd-more' },
            h('span', { class: 'muted small', id: 'fd-count' }, t('fd.count', { a: num(shown.length), n: num(l.total) })),
            h('button', { class: 'btn small ghost', type: 'button', id: 'fd-more', onclick: () => this.more() }, tn('explore.more', Math.min(l.more, FOLDER_PAGE)))));
        }
        dialog.appendChild(list);
        const hiddenBox = h('input', { type: 'checkbox', id: 'fd-hidden', checked: this.hidden });
        hiddenBox.addEventListener('change', () => { this.hidden = hiddenBox.checked; this.go(l.path); });
        dialog.appendChild(h('div', { class: 'modal-foot' },
          h('div', { class: 'foot-path' },
            h('span', { class: 'muted small' }, t('fd.selected')), h('code', { id: 'fd-current', title: l.path }, l.path),
            l.store ? h('span', { class: 'badge store' }, t('fd.store')) : null),
          h('label', { class: 'check' }, hiddenBox, t('fd.show_hidden')),
          h('div', { class: 'actions' },
            h('button', { class: 'btn ghost', type: 'button', onclick: () => this.close() }, t('common.cancel')),
            h('button', { class: 'btn primary', type: 'button', id: 'fd-use', onclick: () => this.choose(l.path) }, t('fd.use')))));
      }
      box.appendChild(h('div', { class: 'modal-backdrop', onclick: (e) => { if (e.target === e.currentTarget) this.close(); } }, dialog));
      if (hadFocus) {
        // after each move the focus lands on the first folder (or the close button)
        const target = dialog.querySelector('#folder-list .folder') || dialog.querySelector('.icon-btn');
        if (target) target.focus();
      }
    },

    async choose(path) {
      this.close();
      if (this.mode === 'project') {
        setup.project = path;
        setup.projectPreview = null;
        setup.written = null;
        setup.hooksPreview = null;
        setup.render();
        await setup.loadHooks();  // the chosen project's hook settings, then draw them
        setup.render();
        return;
      }
      try {
        // a folder without a memory stays a proposal until the user confirms creating one
        const p = await api('/api/setup/preview', { kind: 'store', folder: path });
        if (!p.exists) {
          setup.storePreview = p;
          setup.render();
          const confirm = $('#confirm-store');
          if (confirm) confirm.focus();
          return;
        }
        await api('/api/memory/select', { folder: p.workspace });
        setup.created = null;
        await setup.afterSwitch();
      } catch (err) {
        toast(err.message, 'warn');
      }
    },
  };

  // ---------------------------------------------------------------- start
  const views = { setup, explore, diagnose, timeline };

  async function start() {
    applyStaticText();
    document.querySelectorAll('[data-tab]').forEach((b) => {
      b.addEventListener('click', () => showTab(b.dataset.tab));
      b.addEventListener('keydown', tabKey);
    });
    document.querySelectorAll('[data-lang]').forEach((b) => b.addEventListener('click', () => setLanguage(b.dataset.lang)));
    document.addEventListener('keydown', (e) => {
      if ($('#modal').hidden) return;
      if (e.key === 'Escape') { e.preventDefault(); folderDialog.close(); } else if (e.key === 'Tab') folderDialog.trap(e);
    });
    let resizeTimer = null;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => { if (state.tab === 'timeline' && timeline.rendered) timeline.render(); }, 150);
    });
    try {
      await refreshInfo();
    } catch (err) {
      if (!state.denied) $('#view-explore').appendChild(errorBox(err));
      return;
    }
    window.addEventListener('hashchange', () => applyRoute(state.tab || 'explore'));
    window.addEventListener('popstate', () => applyRoute(state.tab || 'explore'));
    applyRoute(state.info.exists ? 'explore' : 'setup');
    document.body.classList.add('ready');
  }

  start();
})();
