#!/usr/bin/env node
// Lint grapevine's Cypher files with Neo4j's own parser and semantic analysis, offline.
//
//   node tools/cypher-lint/lint.cjs [--strict] [FILES or DIRS...]      (default: queries/)
//
// Prints `path:line:col: message` for each error (severity 1) and
// `path:line:col: warning: message` for each warning (severity 2, e.g. "The query used a
// deprecated function"), then `cypher-lint: N files, M errors[, W warnings]`.
// Exit status: 1 on any error (with --strict, on any warning too), 2 on bad usage, 0 otherwise.
//
// Choices, checked against @neo4j-cypher/language-support 2.0.0-next.38:
// - Parameters: every `$name`, `$`quoted name`` or `$0` found in the text is declared in
//   dbSchema.parameters, so none is reported as "Parameter $x is not defined". A `$` inside a
//   string or comment only declares an unused parameter, which is harmless.
// - Procedures and functions: dbSchema.procedures / dbSchema.functions are left undefined on
//   purpose. The linter then checks neither name (no "Procedure ... is not present in the
//   database" for `CALL db.index.fulltext.queryNodes(...)` or `db.index.vector.queryNodes`),
//   while the grammar, the YIELD syntax and the semantic analysis still run. Declaring some
//   procedures would make every other one (SHOW/`db.*` calls) an error.
// - Several statements per file: the library splits on `;` itself and reports positions in the
//   whole text, so files are linted as they are; `//` comment headers are fine.
// - Console commands (`:param`, `:use`) are disabled: a driver cannot run them, so they are errors.
//   In that mode the library reports a statement made only of comments (a header after the last
//   `;`, a file of comments) as "Expected any of CYPHER, EXPLAIN, PROFILE or a statement", so
//   comments are blanked out first (same length, newlines kept: positions do not move).
// - Deprecations are warnings: shown, but they fail only with --strict (ArcadeDB, the engine we
//   run, accepts some things Neo4j deprecates; Neo4j stays the reference they warn about).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

let lintCypherQuery;
try {
  ({ lintCypherQuery } = require('@neo4j-cypher/language-support'));
} catch (err) {
  process.stderr.write(
    `cypher-lint: cannot load @neo4j-cypher/language-support (${err.message}).\n` +
      `Run \`npm ci\` in ${path.relative(process.cwd(), __dirname) || '.'} first.\n`,
  );
  process.exit(2);
}

const PARAM_RE = /\$(?:`((?:[^`]|``)+)`|([\p{L}_][\p{L}\p{N}_]*|\d+))/gu;

/** Every parameter name written in `text`, declared with a placeholder value. */
function parametersOf(text) {
  const params = {};
  for (const m of text.matchAll(PARAM_RE)) {
    const name = m[1] !== undefined ? m[1].replace(/``/g, '`') : m[2];
    params[name] = null;
    if (m[1] !== undefined) params[m[1]] = null; // the linter's own unquoting keeps `` doubled
  }
  return params;
}

/** `text` with every comment replaced by spaces; strings and `quoted names` left alone. */
function maskComments(text) {
  const out = text.split('');
  let i = 0;
  const blank = (from, to) => {
    for (let k = from; k < to; k += 1) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      i += 1;
      while (i < text.length && text[i] !== c) i += c !== '`' && text[i] === '\\' ? 2 : 1;
      i += 1; // closing quote (a doubled `` simply reopens the name)
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2; // unclosed: the parser will complain anyway
      if (end !== -1) blank(i, stop);
      i = stop;
    } else {
      i += 1;
    }
  }
  return out.join('');
}

/** `*.cypher` files under each argument (a file is taken as given), sorted, without repeats. */
function collectFiles(args) {
  const found = new Set();
  const walk = (p) => {
    const stat = fs.statSync(p);
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(p, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
        const child = path.join(p, entry.name);
        if (entry.isDirectory()) walk(child);
        else if (entry.isFile() && entry.name.endsWith('.cypher')) found.add(child);
      }
    } else {
      found.add(p);
    }
  };
  for (const arg of args) walk(arg);
  return [...found].sort();
}

/** Diagnostics of one file's text: [{severity, line, col, message}] with 1-based positions. */
function lintText(raw) {
  const text = maskComments(raw);
  if (text.trim() === '') return [];
  const { diagnostics } = lintCypherQuery(
    text,
    { parameters: parametersOf(text) },
    { consoleCommandsEnabled: false },
  );
  return diagnostics.map((d) => ({
    severity: d.severity,
    line: d.range.start.line + 1,
    col: d.range.start.character + 1,
    message: d.message.replace(/\s+/g, ' ').trim(),
  }));
}

function main(argv) {
  const strict = argv.includes('--strict');
  const args = argv.filter((a) => a !== '--strict');
  const unknown = args.filter((a) => a.startsWith('--'));
  if (unknown.length) {
    process.stderr.write(`cypher-lint: unknown option ${unknown[0]}\n`);
    return 2;
  }
  const targets = args.length ? args : ['queries'];
  let files;
  try {
    files = collectFiles(targets);
  } catch (err) {
    process.stderr.write(`cypher-lint: ${err.message}\n`);
    return 2;
  }
  let errors = 0;
  let warnings = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
    for (const d of lintText(text)) {
      if (d.severity === 1) errors += 1;
      else if (d.severity === 2) warnings += 1;
      else continue; // hints and information: not worth a line
      const kind = d.severity === 1 ? '' : 'warning: ';
      process.stdout.write(`${file}:${d.line}:${d.col}: ${kind}${d.message}\n`);
    }
  }
  const extra = warnings ? `, ${warnings} warnings` : '';
  process.stdout.write(`cypher-lint: ${files.length} files, ${errors} errors${extra}\n`);
  return errors > 0 || (strict && warnings > 0) ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { lintText, maskComments, parametersOf, collectFiles };
