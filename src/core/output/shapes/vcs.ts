/** Diffs, git status and log: every change stays; long runs of unchanged context fold by shape. */
import type { OutputShape } from './shape.js';

export const diff: OutputShape = {
  name: 'diff',
  kind: 'diff',
  command: /\bgit (diff|show|stash show|format-patch)\b|\bdiff (-\w*u|--unified)|\bgit log -p\b/,
  evidence: /^diff --git |^@@ -\d+(,\d+)? \+\d+(,\d+)? @@|^\+\+\+ |^--- a\//,
  rules: [
    { re: /^(diff --git |\+\+\+ |--- |@@ |new file mode|deleted file mode|rename (from|to) |Binary files )/, role: 'signal' },
    { re: /^[+-]/, role: 'signal' },
    { re: /^index [0-9a-f]+\.\.[0-9a-f]+/, role: 'routine', label: 'index lines' },
  ],
};

export const gitStatus: OutputShape = {
  name: 'git',
  kind: 'vcs',
  command: /\bgit (status|log|branch|stash list|reflog|checkout|reset|apply|am|clean)\b/,
  evidence: /^On branch |^Changes (not staged|to be committed)|^Untracked files:|^commit [0-9a-f]{40}$/,
  rules: [
    { re: /^\s+\(use "git [^"]+"( or "git [^"]+")* to [^)]*\)$/, role: 'routine', label: 'git hints' },
    { re: /^\s+(modified|new file|deleted|renamed|both modified):\s|^On branch |^commit [0-9a-f]{7,}/, role: 'signal' },
  ],
};

export const VCS_SHAPES = [diff, gitStatus];
