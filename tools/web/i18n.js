// Words on the page in the reader's language. Every sentence is one message id: the
// whole English sentence with named placeholders {name} (the same ids as the C++ side's
// core/i18n.h), never glued from pieces. trn picks the plural form by a count, which is
// also the placeholder {n}. Without a translation the English sentence is shown.
//
// The catalogs are the same GNU gettext catalogs as the terminal's (tools/po/*.po),
// answered as JSON at /api/lang/{code} by the engine's API (api.js). The language is the one chosen
// in the page's menu (kept in localStorage), else the first of navigator.languages that
// has a catalog, else English. The pages' static text is marked with data-i18n (the
// element's text), data-i18n-title, data-i18n-aria-label and data-i18n-placeholder.
// An ES module: the pages import tr, trn, currentLanguage and startLanguageMenu.
import { request } from './api.js';
import { SITE } from './site.js';

// The Language menu's entries, in its order: each language named in itself, so that a
// reader finds theirs in any language.
const i18nMenu = [['kk', 'Қазақша'], ['ky', 'Кыргызча'], ['ru', 'Русский'], ['en', 'English']];
const i18nLanguages = ['en', 'kk', 'ru', 'ky'];
const i18nState = {lang: 'en', messages: {}, plural: null};

// text with each {name} replaced by params[name]; a placeholder without a value stays as
// written, so a lost parameter shows.
function fillPlaceholders(text, params) {
  return keepNumbersWithEndings(text.replace(/\{\{|\}\}|\{(\w+)\}/g, (match, name) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    return Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : match;
  }));
}

// Kazakh and Kyrgyz write a number's ending after a hyphen ("2-отау", "14-жүріс"); a
// browser may break a line after any hyphen, which leaves "2-" at a line's end on a
// phone. The non-breaking hyphen (U+2011) looks the same and keeps the two together. For
// the words the page shows (its own and the engine's), never for text it sends back.
export function keepNumbersWithEndings(text) {
  return typeof text === 'string' ? text.replace(/(\d)-(?=\p{L})/gu, '$1\u2011') : text;
}

// Evaluates a gettext Plural-Forms expression (C syntax: n, numbers, ?:, ||, &&,
// comparisons, + - * / %, !, parentheses) for the count n, without eval: the same
// grammar as core/i18n.cpp's evaluator.
function evalPlural(expr, n) {
  const tokens = expr.match(/\d+|n|\|\||&&|==|!=|<=|>=|[-+*/%<>!?:()]/g) || [];
  let i = 0;
  const peek = () => tokens[i];
  const eat = (t) => (tokens[i] === t ? (++i, true) : false);
  const num = (b) => (b ? 1 : 0);
  function ternary() {
    const c = or();
    if (!eat('?')) return c;
    const a = ternary();
    if (!eat(':')) throw new Error('plural: ":" expected');
    const b = ternary();
    return c ? a : b;
  }
  function or() { let v = and(); while (eat('||')) { const r = and(); v = num(v || r); } return v; }
  function and() { let v = eq(); while (eat('&&')) { const r = eq(); v = num(v && r); } return v; }
  function eq() {
    let v = rel();
    for (;;) {
      if (eat('==')) v = num(v === rel());
      else if (eat('!=')) v = num(v !== rel());
      else return v;
    }
  }
  function rel() {
    let v = add();
    for (;;) {
      if (eat('<=')) v = num(v <= add());
      else if (eat('>=')) v = num(v >= add());
      else if (eat('<')) v = num(v < add());
      else if (eat('>')) v = num(v > add());
      else return v;
    }
  }
  function add() {
    let v = mul();
    for (;;) {
      if (eat('+')) v += mul();
      else if (eat('-')) v -= mul();
      else return v;
    }
  }
  function mul() {
    let v = unary();
    for (;;) {
      if (eat('*')) v *= unary();
      else if (eat('/')) v = Math.trunc(v / unary());
      else if (eat('%')) v %= unary();
      else return v;
    }
  }
  function unary() {
    if (eat('!')) return num(!unary());
    if (eat('(')) { const v = ternary(); eat(')'); return v; }
    const t = tokens[i++];
    if (t === 'n') return n;
    if (/^\d+$/.test(t || '')) return Number(t);
    throw new Error('plural: unexpected ' + t);
  }
  const v = ternary();
  if (peek() !== undefined) throw new Error('plural: trailing ' + peek());
  return v;
}

export function tr(msgid, params = {}) {
  const t = i18nState.messages[msgid];
  return fillPlaceholders(typeof t === 'string' && t ? t : msgid, params);
}

export function trn(singular, plural, n, params = {}) {
  let text = n === 1 ? singular : plural;
  const forms = i18nState.messages[singular];
  if (Array.isArray(forms) && i18nState.plural) {
    const k = evalPlural(i18nState.plural, Math.abs(Math.trunc(n)));
    if (forms[k]) text = forms[k];
  }
  return fillPlaceholders(text, {...params, n});
}

// The language the page shows now ('en', 'kk', 'ru' or 'ky').
export function currentLanguage() {
  return i18nState.lang;
}

// The language to start in: the menu's last choice, else the browser's preference.
function initialLanguage() {
  const saved = localStorage.getItem('kz-lang');
  if (saved && i18nLanguages.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const code = String(l).toLowerCase().split(/[-_]/)[0];
    if (i18nLanguages.includes(code)) return code;
  }
  return 'en';
}

// Loads a language's catalog from the server and translates the page's static text.
async function setLanguage(lang) {
  if (!i18nLanguages.includes(lang)) lang = 'en';
  let catalog = {messages: {}, plural: null};
  if (lang !== 'en') {
    // The catalog comes from the engine; the last one received is kept, so that the page
    // still speaks the player's language when the engine cannot answer (it did not start).
    const key = 'kz-catalog-' + lang;
    // The static site carries the catalogs as files (tools/wasm/make_site.cmake), so its
    // words do not wait for, or depend on, its engine.
    const res = SITE.localEngine ? await fetch('lang-' + lang + '.json')
                                 : await request('GET', '/api/lang/' + encodeURIComponent(lang));
    if (res.ok) {
      catalog = await res.json();
      try { localStorage.setItem(key, JSON.stringify(catalog)); } catch (e) { /* storage full: not kept */ }
    } else {
      try { catalog = JSON.parse(localStorage.getItem(key) || 'null'); } catch (e) { catalog = null; }
      if (!catalog || typeof catalog.messages !== 'object') {
        catalog = {messages: {}, plural: null};
        lang = 'en';
      }
    }
  }
  i18nState.lang = lang;
  i18nState.messages = catalog.messages || {};
  i18nState.plural = catalog.plural || null;
  document.documentElement.lang = lang;
  translatePage();
}

// Builds the Language menu (a <select id="lang"> with its label) into the page's
// element #lang-menu, the same on every page, and starts the page in the reader's
// language. A choice is kept in localStorage (shared by the board and the Run view),
// set, and then `onChange` is awaited (the page redraws what it drew in words).
// Resolves once the first language is set.
export function startLanguageMenu(onChange) {
  const holder = document.getElementById('lang-menu');
  const label = document.createElement('span');
  label.dataset.i18n = 'Language';
  label.textContent = tr('Language');
  const menu = document.createElement('select');
  menu.id = 'lang';
  for (const [code, name] of i18nMenu) {
    const option = document.createElement('option');
    option.value = code;
    option.lang = code;
    option.textContent = name;
    menu.append(option);
  }
  holder.replaceChildren(label, menu);
  menu.value = initialLanguage();
  menu.addEventListener('change', async () => {
    try { localStorage.setItem('kz-lang', menu.value); } catch (e) { /* storage full: not kept */ }
    await setLanguage(menu.value);
    await onChange();
  });
  return setLanguage(menu.value);
}

export function translatePage(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = tr(el.dataset.i18n);
  for (const [attr, key] of [['title', 'i18nTitle'], ['aria-label', 'i18nAriaLabel'],
                             ['placeholder', 'i18nPlaceholder']])
    for (const el of root.querySelectorAll(`[data-${attr === 'aria-label' ? 'i18n-aria-label' : 'i18n-' + attr}]`))
      el.setAttribute(attr, tr(el.dataset[key]));
}
