'use strict';
// Words on the page in the reader's language. Every sentence is one message id: the
// whole English sentence with named placeholders {name} (the same ids as the C++ side's
// core/i18n.h), never glued from pieces. trn picks the plural form by a count, which is
// also the placeholder {n}. Without a translation the English sentence is shown.

// text with each {name} replaced by params[name]; a placeholder without a value stays as
// written, so a lost parameter shows.
function fillPlaceholders(text, params) {
  return text.replace(/\{\{|\}\}|\{(\w+)\}/g, (match, name) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    return Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : match;
  });
}

function tr(msgid, params = {}) {
  return fillPlaceholders(msgid, params);
}

function trn(singular, plural, n, params = {}) {
  return fillPlaceholders(n === 1 ? singular : plural, {...params, n});
}
