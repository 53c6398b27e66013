/**
 * Is a command a read of one file? `cat F`, `cat -n F`, `nl -ba F`, `head -n N F`,
 * `sed -n 'a,bp' F` and those piped into `sed -n 'a,bp'` or `head`: their output is the file's
 * lines (numbered or not), which the code pipeline (prune()) prunes with the file's own syntax and
 * line numbers, rather than as a command's output. Only a file whose name says what language it
 * is in counts: `cat test.log` or `cat out.txt` prints output like any command's.
 */
import { detectLanguage } from '../syntax/languages.js';
import { withoutCd } from './commands.js';

export interface FileRead {
  path: string;
  /** The file line the output starts at, when it is a window of a raw file (`sed -n '120,180p' F`). */
  firstLine?: number;
  /** The command names which lines (`sed -n 'a,bp'`, `head`): a window the agent chose, from line 1 too. */
  range?: true;
}

const PATH = String.raw`([^\s|;&<>()'"*?$\`]+)`;
const SED_RANGE = String.raw`sed -n ['"]?(\d+)(?:,(\d+))?p['"]?`;
const HEAD = String.raw`head(?: -n ?\d+| -\d+)?`;

const PATTERNS: { re: RegExp; first?: (m: RegExpExecArray) => number | undefined }[] = [
  // cat F, cat -n F, nl F, nl -ba F, optionally piped into a window or head
  { re: new RegExp(String.raw`^(?:cat(?: -n)?|nl(?: -ba| -b a)?) ${PATH}(?: \| (?:${SED_RANGE}|${HEAD}))?$`) },
  // head -n N F
  { re: new RegExp(`^${HEAD} ${PATH}$`) },
  // sed -n 'a,bp' F
  { re: new RegExp(`^${SED_RANGE} ${PATH}$`), first: (m) => Number(m[1]) },
];

export function fileReadOf(command: string | undefined): FileRead | null {
  if (!command) return null;
  const c = withoutCd(command.trim()).replace(/\s+/g, ' ');
  if (c.includes('<<')) return null;
  for (const p of PATTERNS) {
    const m = p.re.exec(c);
    if (!m) continue;
    const path = m.slice(1).find((g) => g !== undefined && !/^\d+$/.test(g));
    if (!path || path.startsWith('-') || detectLanguage(path) === 'text') return null;
    const first = p.first?.(m);
    const range = p !== PATTERNS[0] || c.includes(' | ');
    return { path, ...(first && first > 1 ? { firstLine: first } : {}), ...(range ? { range } : {}) };
  }
  return null;
}
