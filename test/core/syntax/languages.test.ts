import { describe, expect, it } from 'vitest';
import { detectLanguage, languageInfo, normalizeLanguage } from '../../../src/core/syntax/index.js';

describe('normalizeLanguage', () => {
  it.each([
    ['py', 'python'],
    ['Python3', 'python'],
    ['js', 'javascript'],
    ['jsx', 'javascript'],
    ['mjs', 'javascript'],
    ['cjs', 'javascript'],
    ['ts', 'typescript'],
    ['tsx', 'tsx'],
    ['golang', 'go'],
    ['rs', 'rust'],
    ['c++', 'cpp'],
    ['cc', 'cpp'],
    ['cxx', 'cpp'],
    ['hpp', 'cpp'],
    ['h', 'c'],
    ['cs', 'c_sharp'],
    ['csharp', 'c_sharp'],
    ['C#', 'c_sharp'],
    ['rb', 'ruby'],
    ['kt', 'kotlin'],
    ['kotlin', 'kotlin'],
    ['yml', 'yaml'],
    ['md', 'markdown'],
    ['json', 'json'],
    ['txt', 'text'],
    ['log', 'text'],
    ['', 'text'],
    ['c_sharp', 'c_sharp'],
  ])('%s -> %s', (alias, name) => {
    expect(normalizeLanguage(alias)).toBe(name);
  });

  it('passes unknown names through lower-cased', () => {
    expect(normalizeLanguage('Zig')).toBe('zig');
  });
});

describe('detectLanguage', () => {
  it('uses the extension first', () => {
    expect(detectLanguage('src/a/b.py')).toBe('python');
    expect(detectLanguage('x.tsx')).toBe('tsx');
    expect(detectLanguage('C:\\proj\\Foo.cs')).toBe('c_sharp');
    expect(detectLanguage('lib/sinatra/base.rb')).toBe('ruby');
    expect(detectLanguage('Gemfile')).toBe('ruby');
    expect(detectLanguage('deps.kt')).toBe('kotlin');
    expect(detectLanguage('notes.md')).toBe('markdown');
  });

  it('reads C++ headers with a .h extension as cpp', () => {
    expect(detectLanguage('fmt/core.h', 'namespace fmt {\ntemplate <typename T> class buffer;\n}')).toBe('cpp');
    expect(detectLanguage('util.h', '#include <stdio.h>\nint f(void);\n')).toBe('c');
  });

  it('falls back to the shebang', () => {
    expect(detectLanguage(undefined, '#!/usr/bin/env python3\nprint(1)\n')).toBe('python');
    expect(detectLanguage('script', '#!/usr/bin/env node\nconsole.log(1)\n')).toBe('javascript');
    expect(detectLanguage(undefined, '#!/usr/bin/ruby\nputs 1\n')).toBe('ruby');
    expect(detectLanguage(undefined, '#!/bin/bash\necho hi\n')).toBe('shell');
  });

  it('sniffs content', () => {
    expect(detectLanguage(undefined, 'from os import path\n\ndef f(x):\n    return x\n')).toBe('python');
    expect(detectLanguage(undefined, 'package main\n\nimport "fmt"\n\nfunc main() {}\n')).toBe('go');
    expect(detectLanguage(undefined, '<?php\necho 1;\n')).toBe('php');
    expect(detectLanguage(undefined, '#include <stdio.h>\nint main(void) { return 0; }\n')).toBe('c');
    expect(detectLanguage(undefined, "const x = require('x');\nmodule.exports = x;\n")).toBe('javascript');
    expect(detectLanguage(undefined, 'use std::io;\n\nfn main() {\n    let x = 1;\n}\n')).toBe('rust');
    expect(detectLanguage(undefined, '{"a": [1, 2]}')).toBe('json');
    expect(detectLanguage(undefined, '2024-01-01 12:00:00 INFO started\n')).toBe('text');
    expect(detectLanguage()).toBe('text');
  });
});

describe('languageInfo', () => {
  it('knows comment prefixes for markers', () => {
    expect(languageInfo('python').lineComment).toBe('#');
    expect(languageInfo('ruby').lineComment).toBe('#');
    expect(languageInfo('yaml').lineComment).toBe('#');
    expect(languageInfo('go').lineComment).toBe('//');
    expect(languageInfo('kt').lineComment).toBe('//');
    expect(languageInfo('c#').lineComment).toBe('//');
    expect(languageInfo('sql').lineComment).toBe('--');
    expect(languageInfo('lua').lineComment).toBe('--');
    expect(languageInfo('text').lineComment).toBeNull();
    expect(languageInfo('markdown').lineComment).toBeNull();
    expect(languageInfo('never-heard-of-it').lineComment).toBeNull();
  });

  it('knows block styles and placeholders', () => {
    expect(languageInfo('python')).toMatchObject({ indentScoped: true, blockEnd: 'indent', placeholder: '...', hasGrammar: true });
    expect(languageInfo('ruby')).toMatchObject({ indentScoped: false, blockEnd: 'end', placeholder: null });
    expect(languageInfo('java')).toMatchObject({ blockEnd: 'braces', placeholder: null, hasGrammar: true });
    expect(languageInfo('kotlin').hasGrammar).toBe(false);
  });
});
