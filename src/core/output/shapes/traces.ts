/**
 * Tracebacks and stack traces, in any output: the error and the frames in the project stay; frames
 * in the interpreter, the standard library, site-packages, node_modules or the JDK fold.
 */
import type { LineRule } from './shape.js';

const OUTSIDE = 'frames outside the project';
/** Paths that are not the project's own code. */
const EXTERNAL_PATH = String.raw`(site-packages|dist-packages|/lib/python\d[\d.]*/|<frozen |/usr/lib/|/usr/local/lib/|node_modules|node:internal|/rustc/|/\.cargo/registry/|/usr/local/go/src/|/go/pkg/mod/)`;

export const TRACE_RULES: LineRule[] = [
  // Python
  {
    re: /^\s*(Traceback \(most recent call last\):|During handling of the above exception|The above exception was the direct cause)/,
    role: 'signal',
  },
  { re: new RegExp(String.raw`^\s+File "[^"]*${EXTERNAL_PATH}[^"]*", line \d+`), role: 'routine', label: OUTSIDE, withIndented: true },
  { re: /^\s+File "[^"]+", line \d+/, role: 'signal', withIndented: true },
  { re: /^([\w.]+\.)?\w*(Error|Exception|Exit|Interrupt|Warning|Failure)(: .*)?$|^[\w.]+\.\w+(Error|Exception): /, role: 'signal' },
  // JavaScript (Node's `at fn (file:line:col)`, vitest's `❯ fn file:line:col`): a frame in the project
  // stays, as a Python one does
  { re: new RegExp(String.raw`^\s+(at|❯) .*${EXTERNAL_PATH}`), role: 'routine', label: OUTSIDE },
  { re: /^\s+(at|❯) (.+ \(|.+ )?\S+:\d+:\d+\)?$/, role: 'signal' },
  // Java and other JVM languages
  {
    re: /^\s+at (java|javax|jdk|sun|com\.sun|kotlin|org\.junit|junit|org\.apache\.maven|org\.gradle|org\.testng|worker\.org\.gradle)\./,
    role: 'routine',
    label: OUTSIDE,
  },
  { re: /^\s+\.\.\. \d+ (more|common frames omitted)$/, role: 'routine', label: OUTSIDE },
  { re: /^(Exception in thread |Caused by: )/, role: 'signal' },
  // Go and Rust
  { re: /^(panic: |goroutine \d+ \[|thread '.*' panicked at |fatal error: )/, role: 'signal' },
  { re: new RegExp(String.raw`^\s+${EXTERNAL_PATH}`), role: 'routine', label: OUTSIDE },
  { re: /^\s+\d+: +(std::|core::|rust_begin_unwind|__rust|<alloc::|alloc::)/, role: 'routine', label: OUTSIDE, withIndented: true },
];

/** Noise any command can print: progress bars and spinners. */
export const NOISE_RULES: LineRule[] = [
  { re: /\r(?!$)/, role: 'routine', label: 'progress' },
  { re: /^\s*\d{1,3}%\|[^|]*\|/, role: 'routine', label: 'progress' },
  { re: /^\s*[━─█▉▊▋▌▍▎▏#=>.-]{10,}\s*[\d.]+\s*\/\s*[\d.]+\s*[kMG]?B/, role: 'routine', label: 'progress' },
];
