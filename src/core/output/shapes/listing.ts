/**
 * Listings (`ls`, `ls -R`, `find`, `tree`): every line is an entry of a directory. A long run of
 * entries of one directory that names nothing the agent asked about folds to one marker naming the
 * directory and its count; the directories and entries the question names stay. A repository's
 * metadata (dotfiles, licence, authors, changelog, code of conduct) is routine: agents listing a
 * project look for its code, tests and build files.
 */
import type { OutputShape } from './shape.js';

export const listing: OutputShape = {
  name: 'listing',
  kind: 'listing',
  command: /(^|[\s;&|(])(ls|find|tree|du|fd|fdfind|git ls-files|rg --files)( |$)/,
  rules: [
    { re: /^(ls|find|tree): |^total \d+$|^\d+ director(y|ies), \d+ files?$/, role: 'signal' },
    {
      re: /(^|\s|\/)(\.[\w.-]+|AUTHORS[\w.]*|LICEN[CS]E[\w.]*|COPYING[\w.]*|CODE_OF_CONDUCT[\w.]*|CONTRIBUTING[\w.]*|CHANGES[\w.]*|CHANGELOG[\w.]*|HISTORY[\w.]*|NEWS[\w.]*|MANIFEST\.in|CITATION[\w.]*|SECURITY[\w.]*)\/?$/,
      role: 'routine',
      label: 'repository metadata (dotfiles, licence, authors, changelog)',
    },
  ],
};

/** `ls -R` section headers ("./sympy/core:"). */
const SECTION_RE = /^(\S.*):$/;

/**
 * The directory each line lists an entry of (null for a line that is not an entry: a section
 * header, a blank). `ls -R` names it in section headers; `find` and `rg --files` in each path.
 */
export function directoryOfEntries(lines: readonly string[]): (string | null)[] {
  const out: (string | null)[] = new Array(lines.length).fill(null);
  // `ls -R` separates its sections by a blank line (a bare list of "dir:" lines is not sectioned)
  const sectioned = lines.some((l, i) => i > 0 && SECTION_RE.test(l) && lines[i - 1].trim() === '');
  let section = '.';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() === '') continue;
    if (sectioned) {
      const m = SECTION_RE.exec(l);
      if (m && (i === 0 || lines[i - 1].trim() === '')) {
        section = m[1];
        continue;
      }
      out[i] = section;
      continue;
    }
    const path = l.trim().replace(/^[│├└─\s]+/, '');
    const slash = path.replace(/\/$/, '').lastIndexOf('/');
    out[i] = slash > 0 ? path.slice(0, slash) : '.';
  }
  return out;
}
