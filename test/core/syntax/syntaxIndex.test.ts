import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSyntaxIndex, detectLanguage, ensureGrammar } from '../../../src/core/syntax/index.js';
import type { SyntaxIndex } from '../../../src/core/types.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/syntax/', import.meta.url));

function load(file: string): { lines: string[]; idx: SyntaxIndex; lang: string } {
  const text = readFileSync(FIXTURES + file, 'utf8');
  const lang = detectLanguage(file, text);
  const lines = text.replace(/\n$/, '').split('\n');
  return { lines, idx: buildSyntaxIndex(lines, lang), lang };
}

/** 0-based row of the first line containing `needle` (after `after`). */
function row(lines: string[], needle: string, after = -1): number {
  const i = lines.findIndex((l, k) => k > after && l.includes(needle));
  if (i < 0) throw new Error(`fixture has no line containing ${JSON.stringify(needle)}`);
  return i;
}

interface Case {
  file: string;
  lang: string;
  /** The function/method under test: its header line, last header line, a body line, its closing line (null for python). */
  fn: { name: string; header: string; headerEnd: string; body: string; end: string; kind?: string; decorator?: string };
  /** A line opening a bracket/block and the line closing it. */
  closer?: [string, string];
  /** Lines that must be paired clauses of each other (first is the owner). */
  pairs?: string[];
  /** bound name -> text of its import line. */
  imports: Record<string, string>;
  /** defined name -> text of its defining line. */
  defines: Record<string, string>;
  /** A multi-line statement: its first line and a later line of it. */
  stmt?: [string, string];
}

const CASES: Case[] = [
  {
    file: 'sample.py',
    lang: 'python',
    fn: {
      name: 'select_proxy',
      header: 'def select_proxy',
      headerEnd: 'proxies=None) -> str:',
      body: 'parts = urlparse(url)',
      end: 'return None',
      kind: 'method',
    },
    pairs: ['try:', 'except KeyError:', 'finally:'],
    imports: { os: 'import os', urlparse: '    urlparse,', join_url: 'urljoin as join_url' },
    defines: { Session: 'class Session', DEFAULT_TIMEOUT: 'DEFAULT_TIMEOUT = 30', proxies: 'self.proxies = proxies', trust_env: 'def trust_env' },
    stmt: ['from urllib.parse import (', 'urljoin as join_url'],
  },
  {
    file: 'sample.js',
    lang: 'javascript',
    fn: { name: 'loadUser', header: 'function loadUser', headerEnd: '  next) {', body: 'const id = req.params.id', end: '^}' },
    closer: ["app.get('/users/:id'", '^});'],
    pairs: ['if (!id) {', "} else if (id === 'me') {", '} else {'],
    imports: { path: "const path = require('path')", promisify: 'const { promisify }', express: 'import express' },
    defines: { app: 'const app = express()', loadUser: 'function loadUser', id: 'const id =' },
    stmt: ['res.send(renderUser(req.user, {', "layout: path.join(__dirname, 'views'),"],
  },
  {
    file: 'sample.ts',
    lang: 'typescript',
    fn: {
      name: 'add',
      header: 'add(method: string,',
      headerEnd: 'path: string): this {',
      body: 'return this;',
      end: '^  }',
      kind: 'method',
      decorator: '@logged',
    },
    closer: ['switch (method) {', '^    }'],
    pairs: ['switch (method) {', "case 'GET':", 'default:'],
    imports: { Hono: "import { Hono } from 'hono'", Context: 'import type { Context, Next }', cookie: 'import * as cookie' },
    defines: { Options: 'export interface Options', Router: 'export class Router', middleware: 'export const middleware' },
  },
  {
    file: 'sample.tsx',
    lang: 'tsx',
    fn: { name: 'List', header: 'export const List', headerEnd: 'export const List', body: 'const [open, setOpen]', end: '^};' },
    closer: ['<section className="list">', '</section>'],
    imports: { useState: 'import { useState }', FC: 'import type { FC }' },
    defines: { Props: 'type Props', open: 'const [open, setOpen]', setOpen: 'const [open, setOpen]' },
    stmt: ['return (', '<ul>'],
  },
  {
    file: 'sample.go',
    lang: 'go',
    fn: { name: 'Render', header: 'func (r String) Render', headerEnd: 'code int) error {', body: 'header := w.Header()', end: '^}', kind: 'method' },
    closer: ['switch code {', '^\t}'],
    pairs: ['if len(r.Data) > 0 {', '} else if code > 0 {', '} else {'],
    imports: { fmt: '"fmt"', http: '"net/http"', yaml: 'yaml "gopkg.in/yaml.v2"' },
    defines: { String: 'type String struct', Render: 'func (r String) Render', header: 'header := w.Header()', out: 'out, err := yaml' },
  },
  {
    file: 'Sample.java',
    lang: 'java',
    fn: {
      name: 'toString',
      header: 'public synchronized String toString',
      headerEnd: 'boolean verbose) {',
      body: 'return describe(depth);',
      end: '^  }',
      kind: 'method',
      decorator: '@Override',
    },
    pairs: ['try {', '} catch (IOException e) {', '} finally {'],
    imports: { IOException: 'import java.io.IOException', List: 'import java.util.List', requireNonNull: 'import static' },
    defines: { Dispatcher: 'public final class Dispatcher', running: 'private final List<Call> running', describe: 'private String describe' },
  },
  {
    file: 'sample.rs',
    lang: 'rust',
    fn: {
      name: 'new',
      header: 'pub fn new(',
      headerEnd: 'limit: usize) -> Config {',
      body: 'let mut limits',
      end: '^    }',
      kind: 'method',
      decorator: '#[inline]',
    },
    closer: ['pub struct Config {', '^}'],
    pairs: ['let n = match', 'Some(n) => *n,', 'None => 0,'],
    imports: { HashMap: 'use std::collections::HashMap', IoRead: 'use std::io::{self', Write: 'use std::io::{self', Error: 'use crate::error::Error' },
    defines: { Config: 'pub struct Config', check: 'pub fn check', limits: 'let mut limits' },
  },
  {
    file: 'sample.c',
    lang: 'c',
    fn: { name: 'grow', header: 'static int grow', headerEnd: '^{', body: 'buf->data = realloc', end: '^}' },
    closer: ['struct buffer {', '^};'],
    pairs: ['switch (need % 4) {', 'case 0:', 'default:'],
    imports: {},
    defines: { BUF_MIN: '#define BUF_MIN', buffer: 'struct buffer {', grow: 'static int grow', data: 'char *data;' },
  },
  {
    file: 'sample.cc',
    lang: 'cpp',
    fn: { name: 'append', header: 'void append(', headerEnd: 'const T* end) {', body: 'try {', end: '^  }', kind: 'method' },
    closer: ['namespace fmt {', '}  // namespace fmt'],
    pairs: ['try {', '} catch (const std::bad_alloc& e) {'],
    imports: {},
    defines: { buffer: 'class buffer {', append: 'void append(', data_: 'std::vector<T> data_;' },
  },
  {
    file: 'sample.rb',
    lang: 'ruby',
    fn: { name: 'finish', header: 'def finish', headerEnd: 'def finish', body: '[@status, @body]', end: '^    end', kind: 'method' },
    closer: ["get '/' do |params|", '^    end'],
    pairs: ['if @status == 204', 'elsif @status >= 500', 'else'],
    imports: {},
    defines: { Sinatra: 'module Sinatra', Response: 'class Response', initialize: 'def initialize', status: '@status = status' },
  },
  {
    file: 'sample.php',
    lang: 'php',
    fn: { name: 'show', header: 'public function show(', headerEnd: '^    {', body: 'return $user;', end: '^    }', kind: 'method' },
    pairs: ["if ($request->has('x')) {", '} elseif ($id > 10) {', '} else {'],
    imports: { Str: 'use Illuminate\\Support\\Str', Baz: 'use Foo\\Bar as Baz' },
    defines: { UserController: 'class UserController', show: 'public function show', users: 'private $users' },
  },
  {
    file: 'Sample.cs',
    lang: 'c_sharp',
    fn: { name: 'Lookup', header: 'public object Lookup(', headerEnd: '^        {', body: 'try', end: '^        }', kind: 'method', decorator: '[Obsolete(' },
    pairs: ['if (create)', '^                else'],
    imports: { System: 'using System;', Generic: 'using System.Collections.Generic', Json: 'using Json =' },
    defines: { ReflectionCache: 'internal class ReflectionCache', Lookup: 'public object Lookup', _cache: 'Dictionary<Type, object> _cache' },
  },
  {
    file: 'sample.kt',
    lang: 'kotlin',
    fn: { name: 'newQueue', header: 'fun newQueue', headerEnd: 'fun newQueue', body: 'val name =', end: '^  }', kind: 'method', decorator: '@Synchronized' },
    closer: ['try {', '} catch'],
    pairs: ['if (now > 0) {', '} else {'],
    imports: { TimeUnit: 'import java.util.concurrent.TimeUnit', assertLock: 'as assertLock' },
    defines: { TaskRunner: 'class TaskRunner', nextQueueName: 'private var nextQueueName', newQueue: 'fun newQueue' },
  },
];

/** `^text` matches a line starting with text; otherwise a substring match. */
function find(lines: string[], needle: string, after = -1): number {
  if (!needle.startsWith('^')) return row(lines, needle, after);
  const want = needle.slice(1);
  const i = lines.findIndex((l, k) => k > after && l.startsWith(want) && l.trimEnd() === want);
  if (i < 0) throw new Error(`fixture has no line equal to ${JSON.stringify(want)} after ${after}`);
  return i;
}

beforeAll(async () => {
  for (const c of CASES) await ensureGrammar(c.lang);
});

describe.each(CASES)('$lang ($file)', (c) => {
  it('detects the language and parses cleanly', () => {
    const { idx, lang } = load(c.file);
    expect(lang).toBe(c.lang);
    expect(idx.language).toBe(c.lang);
    expect(idx.hasGrammar).toBe(c.lang !== 'kotlin');
    if (c.lang !== 'kotlin') expect(idx.parseOk).toBe(true);
  });

  it('finds the function scope: header, multi-line signature, body, end, decorators', () => {
    const { lines, idx } = load(c.file);
    const start = find(lines, c.fn.header);
    const scope = idx.scopes.find((s) => s.start === start && s.isDefinition);
    expect(scope, `no definition scope starting at ${start}`).toBeDefined();
    expect(scope!.name).toBe(c.fn.name);
    if (c.fn.kind) expect(scope!.kind).toBe(c.fn.kind);
    expect(scope!.headerEnd).toBe(find(lines, c.fn.headerEnd, start - 1));
    const body = find(lines, c.fn.body, scope!.headerEnd);
    expect(scope!.bodyStart).toBeGreaterThan(scope!.headerEnd);
    expect(scope!.bodyStart).toBeLessThanOrEqual(body);
    expect(scope!.end).toBe(find(lines, c.fn.end, body - 1));
    expect(idx.lines[start]!.kind).toBe('header');
    const si = idx.scopes.indexOf(scope!);
    expect(idx.lines[body]!.scopes).toContain(si);
    expect(idx.lines[start]!.scopes).not.toContain(si);
    // enclosing scopes are listed outermost first
    const encl = idx.lines[body]!.scopes.map((k) => idx.scopes[k]!);
    for (let k = 1; k < encl.length; k++) expect(encl[k]!.start).toBeGreaterThanOrEqual(encl[k - 1]!.start);
    expect(idx.lines[body]!.depth).toBe(encl.length);
    expect(scope!.bodyIndent).toMatch(/^[ \t]+$/);
    if (c.fn.decorator) {
      const d = find(lines, c.fn.decorator);
      expect(scope!.decorators).toContain(d);
      expect(idx.lines[d]!.kind).toBe('decorator');
    }
  });

  it('maps bracket/block openers to their closing lines', () => {
    const { lines, idx } = load(c.file);
    if (!c.closer) return;
    const open = find(lines, c.closer[0]);
    const close = find(lines, c.closer[1], open);
    expect(idx.lines[open]!.closers).toContain(close);
  });

  it('pairs clauses with their owner', () => {
    const { lines, idx } = load(c.file);
    if (!c.pairs) return;
    const rows: number[] = [];
    for (const p of c.pairs) rows.push(find(lines, p, rows.length ? rows[rows.length - 1] : -1));
    for (const r of rows.slice(1)) {
      expect(idx.lines[rows[0]!]!.pairs).toContain(r);
      expect(idx.lines[r]!.pairs).toContain(rows[0]);
      expect(idx.lines[r]!.kind).toBe('clause');
    }
  });

  it('binds imports and records definitions', () => {
    const { lines, idx } = load(c.file);
    for (const [name, text] of Object.entries(c.imports)) {
      expect(idx.imports.get(name), `import ${name}`).toBe(find(lines, text));
      expect(idx.lines[find(lines, text)]!.kind).toBe('import');
    }
    for (const [name, text] of Object.entries(c.defines)) {
      const r = find(lines, text);
      expect(idx.definitions.get(name), `definition ${name}`).toContain(r);
      expect(idx.lines[r]!.defines).toContain(name);
      expect(idx.lines[r]!.uses).not.toContain(name);
    }
  });

  it('gives multi-line statements one range', () => {
    const { lines, idx } = load(c.file);
    if (!c.stmt) return;
    const s = find(lines, c.stmt[0]);
    const inner = find(lines, c.stmt[1], s);
    expect(idx.lines[inner]!.stmtStart).toBe(s);
    expect(idx.lines[s]!.stmtEnd).toBeGreaterThanOrEqual(inner);
  });
});

describe('line facts', () => {
  it('classifies python lines and collects uses', async () => {
    await ensureGrammar('python');
    const { lines, idx } = load('sample.py');
    expect(idx.lines[0]!.kind).toBe('docstring');
    expect(idx.lines[find(lines, '"""Keeps settings')]!.kind).toBe('docstring');
    expect(idx.lines[find(lines, '@property')]!.kind).toBe('decorator');
    expect(idx.lines[find(lines, 'except KeyError:')]!.kind).toBe('clause');
    const u = idx.lines[find(lines, 'parts = urlparse(url)')]!;
    expect(u.uses).toEqual(expect.arrayContaining(['urlparse', 'url']));
    expect(u.uses).not.toContain('parts');
    expect(u.defines).toEqual(['parts']);
    // strings are not identifiers
    expect(idx.lines[find(lines, 'os.environ.get(')]!.uses).not.toContain('TRUST_ENV');
  });

  it('marks closing-only lines as closers', async () => {
    await ensureGrammar('javascript');
    const { lines, idx } = load('sample.js');
    expect(idx.lines[find(lines, '^});')]!.kind).toBe('closer');
    expect(idx.lines[find(lines, '^}')]!.kind).toBe('closer');
    expect(idx.lines[find(lines, "'use strict'")]!.kind).toBe('code');
  });

  it('treats ruby `end` as closer of its opener', async () => {
    await ensureGrammar('ruby');
    const { lines, idx } = load('sample.rb');
    const def = find(lines, 'def finish');
    const end = idx.scopes.find((s) => s.start === def)!.end;
    expect(lines[end]!.trim()).toBe('end');
    expect(idx.lines[def]!.closers).toContain(end);
    expect(idx.lines[end]!.kind).toBe('closer');
    // rescue/ensure pair with the method that owns them
    expect(idx.lines[def]!.pairs).toEqual(expect.arrayContaining([find(lines, 'rescue StandardError'), find(lines, 'ensure')]));
  });
});
